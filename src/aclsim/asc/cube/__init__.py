"""The Cube unit's instructions: LoadData (2D, img2col, with transpose), Mmad, Fixpipe."""
