"""What the server computes beyond a mechanism's own estimate: post-processing and RAPPOR's decoder."""

__all__ = [
    "postprocessing",
    "rappor_decoding",
]
