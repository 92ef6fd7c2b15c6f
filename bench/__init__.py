"""pytest-benchmark suite (``make bench``): every figure is measured beside its baseline in the same run."""
