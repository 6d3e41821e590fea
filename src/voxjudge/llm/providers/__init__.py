"""Provider adapters. Each turns our ``Request`` into one API call with pure conversion functions."""
