"""Launch files (YAML -> validated launch configuration) and profiles."""
