"""Language packs: script-specific folds of spelling variants that readers treat as the same."""
