"""The code and the graph of our PrivateExpanderSketch: a systematic Reed–Solomon code over GF(16) on a Möbius ladder.

Bun, Nelson and Stemmer ([bun2018]) encode each value with an error-correcting code whose symbols
sit on the vertices of an expander graph, so that a heavy hitter's symbols form a well-connected
cluster the server can find and decode.  The concrete code, graph and decoder here are **our
choices** (each stated here; none is taken from the paper):

* **Code**: a value of ``bits`` bits is M₀ = ⌈bits/4⌉ nibbles, the message of a *systematic
  Reed–Solomon code over GF(16)* of length M = 2·M₀ (≤ 16, so bits ≤ 32): symbol m < M₀ is nibble m
  (most significant first), symbol m ≥ M₀ is the value at the point m of the polynomial of degree
  < M₀ through (i, nibble i), i < M₀ ([reed1960]).  Any M₀ symbols determine the value; two values
  agree on at most M₀ − 1 symbols.  GF(16) is GF(2)[z]/(z⁴ + z + 1), its elements the integers 0–15.
* **Graph**: the circulant graph on the M positions with jumps 1 and M/2 (a Möbius ladder:
  3-regular, 3M/2 edges; K₄ for M = 4).
* **Decoder** (in :mod:`ldp_helpers.protocols.expander_sketch`): enumerate the information symbols
  from the heavy pairs found on the edges (all 16 where none is found, at most ``max_erasures``
  positions), re-encode, and keep a codeword when enough edges carry its pair.

References
----------
[bun2018] (PrivateExpanderSketch: a list-recoverable code over an expander); [larsen2016] (the
expander sketch it builds on); [reed1960] (Reed–Solomon codes).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ldp_helpers._validation import check_int, check_int_array, fail

SYMBOL_BITS = 4  # GF(16): one symbol is a nibble
FIELD = 16
MAX_LENGTH = 16  # an RS code over GF(16) has at most 16 evaluation points
_POLY = 0b10011  # z⁴ + z + 1, primitive


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """(exp, log) of GF(16): exp[i] = α^i for i < 30 (α = z), log[x] for x ≥ 1."""
    exp, log, x = np.zeros(30, dtype=np.int64), np.zeros(FIELD, dtype=np.int64), 1
    for i in range(15):
        exp[i] = exp[i + 15] = x
        log[x] = i
        x <<= 1
        if x & FIELD:
            x ^= _POLY
    exp.setflags(write=False)
    log.setflags(write=False)
    return exp, log


@functools.lru_cache(maxsize=1)
def multiplication_table() -> np.ndarray:
    """T[a, b] = a·b in GF(16) (16 × 16, read-only)."""
    exp, log = _tables()
    a, b = np.meshgrid(np.arange(FIELD), np.arange(FIELD), indexing="ij")
    table = np.where((a == 0) | (b == 0), 0, exp[(log[a] + log[b]) % 15])
    table.setflags(write=False)
    return table


def _inverse(a: int) -> int:
    exp, log = _tables()
    return int(exp[(15 - log[a]) % 15])


def code_length(bits: int) -> tuple[int, int]:
    """(M₀, M): message nibbles ⌈bits/4⌉ and code length 2·M₀ for ``bits``-bit values (8 ≤ bits ≤ 32)."""
    bits = check_int("bits", bits, low=8, high=SYMBOL_BITS * MAX_LENGTH // 2)
    information = math.ceil(bits / SYMBOL_BITS)
    return information, 2 * information


@functools.lru_cache(maxsize=8)
def _parity_matrix(information: int, length: int) -> np.ndarray:
    """L[t, i] = Lagrange basis polynomial i at point t (t = M₀ … M − 1) over the points 0 … M₀ − 1 (GF(16))."""
    mul = multiplication_table()
    out = np.zeros((length - information, information), dtype=np.int64)
    for t in range(information, length):
        for i in range(information):
            value = 1
            for j in range(information):
                if j != i:  # (t − j)/(i − j), subtraction is XOR in characteristic 2
                    value = mul[mul[value, t ^ j], _inverse(i ^ j)]
            out[t - information, i] = value
    out.setflags(write=False)
    return out


def nibbles(values, bits: int) -> np.ndarray:
    """The M₀ message nibbles of each value, most significant first: shape (len(values), M₀)."""
    information, _ = code_length(bits)
    values = check_int_array("values", values, low=0, high=2**bits - 1).ravel()
    shifts = SYMBOL_BITS * (information - 1 - np.arange(information))
    return (values[:, None] >> shifts[None, :]) & (FIELD - 1)


def encode(values, bits: int) -> np.ndarray:
    """The systematic Reed–Solomon codewords of ``bits``-bit values, shape (len(values), 2·M₀), symbols in [0, 16).

    References
    ----------
    [reed1960] (evaluation of the message polynomial); [bun2018] (the code of PrivateExpanderSketch).
    """
    information, length = code_length(bits)
    return _encode_nibbles(nibbles(values, bits).T, information, length).T


def _encode_nibbles(message: np.ndarray, information: int, length: int) -> np.ndarray:
    """Codewords of validated message symbols, position-major: message M₀ × N, codewords M × N.

    The code is linear (addition is XOR), so the parity symbols are the XOR over positions i of
    those of nibble message[i] alone at i, read from :func:`_unit_parities` as one packed word."""
    words = _unit_parities(information, length)
    packed = words[0][message[0]]
    for i in range(1, information):
        packed ^= words[i][message[i]]
    shifts = SYMBOL_BITS * np.arange(length - information, dtype=np.uint32)
    parity = (packed >> shifts[:, None]) & np.uint32(FIELD - 1)
    return np.concatenate([message, parity.astype(np.uint8)])


@functools.lru_cache(maxsize=8)
def _unit_parities(information: int, length: int) -> np.ndarray:
    """W[i, s] = the parity symbols of the message with nibble s at position i and 0 elsewhere,
    s·L[:, i], packed: parity symbol t in bits 4t … 4t + 3 of a uint32 (M − M₀ ≤ 8 symbols; shape
    M₀ × 16, read-only)."""
    lagrange = _parity_matrix(information, length).T  # (i, t)
    table = multiplication_table()[np.arange(FIELD)[None, :, None], lagrange[:, None, :]]
    shifts = SYMBOL_BITS * np.arange(length - information)
    words = np.bitwise_or.reduce(table << shifts, axis=2).astype(np.uint32)
    words.setflags(write=False)
    return words


def decode_message(message, bits: int) -> np.ndarray:
    """The values whose message nibbles are ``message`` (N × M₀), most significant first."""
    information, _ = code_length(bits)
    message = check_int_array("message", message, low=0, high=FIELD - 1)
    if message.ndim != 2 or message.shape[1] != information:
        fail("message", message.shape, f"an array of shape (N, {information})")
    return (message * (FIELD ** (information - 1 - np.arange(information)))).sum(axis=1)


def expander_edges(length: int) -> np.ndarray:
    """The edges (m, m') of our graph on ``length`` positions: jumps 1 and length/2 (a Möbius ladder), shape (E, 2).

    References
    ----------
    [bun2018] (symbols on the vertices of an expander; the graph is ours).
    """
    length = check_int("length", length, low=4, high=MAX_LENGTH)
    if length % 2:
        fail("length", length, "an even number of positions (the code has length 2·M₀)")
    ring = [(m, (m + 1) % length) for m in range(length)]
    rungs = [(m, m + length // 2) for m in range(length // 2)]
    edges = sorted({tuple(sorted(e)) for e in ring + rungs})
    return np.array(edges, dtype=np.int64)
