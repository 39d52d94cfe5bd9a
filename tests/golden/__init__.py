"""Golden trajectories of every registered id (see record.py)."""
