"""Test helpers shared by KOPA packages (tiny offline models, fakes)."""
