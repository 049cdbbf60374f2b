"""The monitor: a faust-streaming read-side app with live jackpot meters, ops figures and integrity alerts."""
