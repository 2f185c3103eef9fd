"""One AI Core: `Core` (identity, local memories, each unit's state), `Pool` (a local memory), pipe access reports."""
