"""The peers audited for real (installed by `make peers`, a prerequisite of `make test`):
pure-ldp 1.1.2's SUE and OUE are flagged at 99 % confidence, pure-ldp 1.2.0 and multi-freq-ldpy are not, and no
peer's OLH client is (its reports audited through the values they support under the peer's own hash).

Reference: Arcolezi & Gambs, PETS 2024 ([arcolezi2024]).
"""

import pytest

from ldp_tools.peers import PEERS, peer_audits


@pytest.fixture(scope="module")
def audits():
    missing = [peer for peer, (folder, _, _) in PEERS.items() if not folder.is_dir()]
    assert not missing, f"peers {missing} are not installed: run `make peers` (make test does)"
    return peer_audits(epsilon=1.0, d=4, n_trials=10_000, seed=2024, confidence=0.99)


@pytest.mark.parametrize("protocol", ["SUE", "OUE"])
def test_pure_ldp_112_is_flagged(audits, protocol):
    found = audits["pure-ldp-1.1.2"]
    assert found["version"] == "1.1.2"
    assert found["audits"][protocol]["violation"] and found["audits"][protocol]["epsilon_lb"] > 1.0


@pytest.mark.parametrize("peer", ["pure-ldp-1.2.0", "multi-freq-ldpy"])
@pytest.mark.parametrize("protocol", ["SUE", "OUE"])
def test_fixed_peers_are_not_flagged(audits, peer, protocol):
    result = audits[peer]["audits"][protocol]
    assert not result["violation"] and 0.0 < result["epsilon_lb"] <= 1.0


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_peers_olh_clients_are_not_flagged(audits, peer):
    """Every peer's OLH client (pure-ldp's LHClient(use_olh=True), multi-freq-ldpy's LH_Client) keeps ε = 1, and the
    audit is not vacuous: the support event separates the two inputs (ε_lb well above 0)."""
    result = audits[peer]["audits"]["OLH"]
    assert not result["violation"] and 0.5 < result["epsilon_lb"] <= 1.0
