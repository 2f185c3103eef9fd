"""pyasc's `asc.language.basic`: its call forms adapted onto the instruction table (aclsim.asc.engine)."""
