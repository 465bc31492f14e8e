"""Game records: the model, the PGN-like text format (read and written), replay and
verification through the rules, and the self-contained HTML viewer."""
