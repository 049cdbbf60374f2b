"""Make the roles' ACLs and quotas (shared.roles) real on a broker with kafka-python's admin client: create what is
missing, report what is there beyond the code (drift; removed only when asked), and delete a test prefix's rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from shared.roles import ROLES, AclRule, Role, acl_rules


class AclError(RuntimeError):
    """The broker refused to create or delete ACLs (the message is the broker's reason)."""


@dataclass(frozen=True)
class AclReport:
    principal: str
    created: tuple[AclRule, ...] = ()
    present: int = 0
    extra: tuple[AclRule, ...] = field(default_factory=tuple)  # on the broker, not in the code (drift)
    removed: tuple[AclRule, ...] = ()


def _kafka_acl(rule: AclRule):
    from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePattern, ResourceType

    pattern = ResourcePattern(ResourceType[rule.resource], rule.name, ACLResourcePatternType[rule.pattern])
    return ACL(rule.principal, "*", ACLOperation[rule.operation], ACLPermissionType[rule.permission], pattern)


def _rule(acl) -> AclRule:
    pattern = acl.resource_pattern
    return AclRule(
        acl.principal,
        pattern.resource_type.name,
        pattern.resource_name,
        pattern.pattern_type.name,
        acl.operation.name,
        acl.permission_type.name,
    )


def broker_rules(admin, principal: str) -> set[AclRule]:
    """Every rule (ALLOW and DENY) a principal holds on the broker."""
    from kafka.admin import (
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePatternFilter,
        ResourceType,
    )

    wanted = ACLFilter(
        principal,
        None,
        ACLOperation.ANY,
        ACLPermissionType.ANY,
        ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY),
    )
    found, error = admin.describe_acls(wanted)
    if error.errno != 0:
        raise AclError(f"cannot describe the ACLs of {principal}: {error}")
    return {_rule(acl) for acl in found}


def _of_a_deployment(rule: AclRule, live: set[AclRule]) -> bool:
    """True when `rule` is one of the live rules under some deployment prefix (a running test's or benchmark's)."""
    return any(
        rule.name.endswith(mine.name)
        and rule.name != mine.name
        and (rule.resource, rule.pattern, rule.operation) == (mine.resource, mine.pattern, mine.operation)
        for mine in live
    )


def _under(rule: AclRule, prefix: str) -> bool:
    return rule.resource in ("TOPIC", "GROUP", "TRANSACTIONAL_ID") and rule.name.startswith(prefix)


def apply_acls(admin, prefix: str = "", roles: Iterable[Role] = ROLES, prune: bool = False) -> list[AclReport]:
    """Create each role's missing rules under `prefix`. Rules a principal holds beyond the code are reported as
    drift (with a prefix: only those under it), and deleted when `prune`."""
    reports = []
    for member in roles:
        declared = set(acl_rules(member, prefix))
        found = broker_rules(admin, member.principal)
        missing = sorted(declared - found)
        live = set(acl_rules(member)) if prefix else declared
        extra = sorted(
            rule for rule in found - declared if (_under(rule, prefix) if prefix else not _of_a_deployment(rule, live))
        )
        if missing:
            result = admin.create_acls([_kafka_acl(rule) for rule in missing])
            if result["failed"]:
                raise AclError(f"cannot create ACLs for {member.principal}: {result['failed'][0]}")
        removed = tuple(delete_rules(admin, extra)) if prune and extra else ()
        reports.append(
            AclReport(
                member.principal, tuple(missing), len(declared) - len(missing), () if removed else tuple(extra), removed
            )
        )
    return reports


def delete_rules(admin, rules: Iterable[AclRule]) -> list[AclRule]:
    """Delete exactly these rules (each as a literal filter); returns what the broker reports as deleted."""
    from kafka.admin import ACLFilter

    filters = [
        ACLFilter(acl.principal, acl.host, acl.operation, acl.permission_type, acl.resource_pattern)
        for acl in map(_kafka_acl, rules)
    ]
    if not filters:
        return []
    deleted = []
    for _, matching, error in admin.delete_acls(filters):
        if error.errno != 0:
            raise AclError(f"cannot delete ACLs: {error}")
        deleted += [_rule(acl) for acl in matching]
    return deleted


def delete_prefix_acls(admin, prefix: str, roles: Iterable[Role] = ROLES) -> list[AclRule]:
    """Remove what `apply_acls(admin, prefix)` created (test and benchmark deployments clean up after themselves)."""
    if not prefix:
        raise ValueError("refusing to delete the un-prefixed (live) ACLs")
    return delete_rules(admin, [rule for member in roles for rule in acl_rules(member, prefix) if _under(rule, prefix)])


def apply_quotas(admin, roles: Iterable[Role] = ROLES) -> dict[str, dict[str, float]]:
    """Set each role's per-user quotas (and remove the ones it no longer declares); returns what was set."""
    from kafka.protocol.admin import AlterClientQuotasRequest

    known = ("producer_byte_rate", "consumer_byte_rate", "request_percentage")
    entries, applied = [], {}
    for member in roles:
        ops = [(key, float(member.quotas.get(key, 0.0)), key not in member.quotas) for key in known]
        entries.append(([("user", member.name)], ops))
        applied[member.name] = dict(member.quotas)
    request = AlterClientQuotasRequest(entries=entries, validate_only=False)
    response = admin._manager.run(admin._manager.send, request)  # noqa: SLF001 - kafka-python has no quota API
    failures = [entry for entry in response.entries if entry.error_code]
    if failures:
        raise AclError(f"cannot set quotas: {failures[0].error_message}")
    return applied


_SECURITY_DISABLED = 54  # Kafka protocol error SECURITY_DISABLED: the broker has no authorizer


def authorizer_enabled(admin) -> bool:
    """False on a broker without an authorizer (plaintext local broker): there is nothing to grant there."""
    from kafka.admin import (
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePatternFilter,
        ResourceType,
    )
    from kafka.errors import SecurityDisabledError

    probe = ACLFilter(
        None,
        None,
        ACLOperation.ANY,
        ACLPermissionType.ANY,
        ResourcePatternFilter(ResourceType.TOPIC, "-", ACLResourcePatternType.LITERAL),
    )
    try:
        _, error = admin.describe_acls(probe)
    except SecurityDisabledError:
        return False
    return error.errno != _SECURITY_DISABLED


def grant_prefix(admin, prefix: str, timeout_s: float = 15, roles: Iterable[Role] = ROLES) -> int:
    """Apply every role's rules under a test or benchmark deployment's prefix and wait until the broker's authorizer
    shows them all; returns how many were created (0 without an authorizer)."""
    from shared.waits import wait_until

    if not prefix or not authorizer_enabled(admin):
        return 0
    roles = tuple(roles)
    reports = apply_acls(admin, prefix, roles)
    declared = {member.principal: set(acl_rules(member, prefix)) for member in roles}
    wait_until(
        lambda: all(rules <= broker_rules(admin, principal) for principal, rules in declared.items()),
        timeout_s,
        0.1,
        what=f"ACLs under {prefix!r} visible",
    )
    return sum(len(report.created) for report in reports)


def revoke_prefix(admin, prefix: str) -> int:
    """Delete a deployment prefix's rules (nothing to do without an authorizer); returns how many were deleted."""
    if not prefix or not authorizer_enabled(admin):
        return 0
    return len(delete_prefix_acls(admin, prefix))


def cut_off_rules(member: Role, prefix: str = "") -> list[AclRule]:
    """A DENY WRITE for each topic `member` may write under `prefix`: a DENY wins over any ALLOW, so the principal
    writes nothing more from the moment the broker has the rules, and nothing else it does (nor any service) stops."""
    return sorted(
        AclRule(rule.principal, rule.resource, rule.name, rule.pattern, "WRITE", "DENY")
        for rule in acl_rules(member, prefix)
        if rule.resource == "TOPIC" and rule.operation == "WRITE" and rule.permission == "ALLOW"
    )


def cut_off(admin, member: Role, prefix: str = "", restore: bool = False) -> list[AclRule]:
    """Deny `member` every write (or, with `restore`, take those DENY rules away again); returns the rules changed."""
    rules = cut_off_rules(member, prefix)
    if restore:
        return delete_rules(admin, rules)
    result = admin.create_acls([_kafka_acl(rule) for rule in rules])
    if result["failed"]:
        raise AclError(f"cannot deny {member.principal} its writes: {result['failed'][0]}")
    return rules
