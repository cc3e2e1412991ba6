pytest_plugins = ["launchops.sandbox.pytest_plugin"]
