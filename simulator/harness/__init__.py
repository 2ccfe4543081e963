"""The pytest side: the plugin's hooks, the fixtures that build a run's subjects, preflight, the console, the
xdist bridge, interruption, and pytest-bdd's speed-ups. The only package (with ``steps``) that imports pytest or
pytest-bdd.
"""
