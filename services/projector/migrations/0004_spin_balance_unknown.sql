-- A seamless operator's spin is settled with balance_after_minor null when the operator's wallet acknowledged the
-- win without a balance (docs/seamless.md): reelstream never states a balance it was not given.
ALTER TABLE spins ALTER COLUMN balance_after_minor DROP NOT NULL;
