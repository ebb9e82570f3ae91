"""Physics regression benchmarks: golden throws, distribution drift, convergence, physical
sanity and speed, compared against a recorded baseline (`tabletop bench`)."""
