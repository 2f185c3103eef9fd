"""One launch of a kernel body over the cores of the emulated chip."""
