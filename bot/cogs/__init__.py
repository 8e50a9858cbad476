"""Thin Discord glue, one package per feature: options → service → render."""
