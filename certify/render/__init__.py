"""Human-readable output: short text summaries (and, later, LaTeX) from certificates."""
