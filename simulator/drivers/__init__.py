"""Role drivers: the scenario logic of each feature area, as named, documented operations over the simulator roles.

A step definition (``steps/``) translates one Gherkin phrase into one driver call and, for a Then step, a typed
assertion; the driver carries the scenario state (names the feature gives to devices, chats, tasks, calls), talks to
the subject through a role (``simulator.roles``) and its control API (``simulator.subjects.control``), and judges with the
rule the protocol core states (``simulator.hook``) or the expectation the feature wrote. Layering: core ← roles ←
drivers ← steps; a driver never imports ``steps/``, the pytest plugin or a reference implementation.

| module | drives |
|---|---|
| ``timing`` | what every driver shares: how long a negative check watches, the polling of a positive one |
| ``control_schema`` | what every driver shares: a control answer checked against its role's JSON Schema before it is read |
| ``hook_frames`` | the frame features: a frame built, mutated and delivered to a hook subject, its drop judged |
| ``hook_server`` | a hook server under test, from the desktop side (devices, channel, control API) |
| ``hook_desktop`` | a desktop under test, from the hook-server side |
| ``ccweb`` | a ccweb MCP server under test, as its MCP client and through its control API |
| ``probekit`` | an mcp-probe-kit server under test, as its MCP client |
"""
