"""What a call-time inspector finds about one concrete call: a band, the
Rule-of-Two facts the call would add, and why."""

from __future__ import annotations

from dataclasses import dataclass, field

from rbv_adapter import band_max
from rbv_adapter.messages import Band


@dataclass
class Finding:
    band: Band
    state_change: bool = False
    sensitive: bool = False
    # The call brings content from elsewhere into the session (a fetch).
    ingests: bool = False
    reasons: list[str] = field(default_factory=list)

    @staticmethod
    def read(reason: str, sensitive: bool = False) -> Finding:
        return Finding("auto", sensitive=sensitive, reasons=[reason])

    @staticmethod
    def write(reason: str, sensitive: bool = False, band: Band = "escalate") -> Finding:
        return Finding(band, state_change=True, sensitive=sensitive, reasons=[reason])

    def combine(self, other: Finding) -> Finding:
        band = band_max(self.band, other.band)
        assert band is not None
        return Finding(
            band,
            self.state_change or other.state_change,
            self.sensitive or other.sensitive,
            self.ingests or other.ingests,
            self.reasons + other.reasons,
        )
