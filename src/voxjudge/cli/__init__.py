"""The voxjudge command line: parse, call the library, render. No evaluation logic lives here."""
