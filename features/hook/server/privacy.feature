Feature: What the hook server never puts on the wire
  Local folders stay on the desktop: the server dispatches and reports only the aliases a hello registered (§2
  "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线。server 只能派发 hello 注册过的别名。"). The rule is also
  judged over every frame the server sends in the whole run (the emitted-frames results of the report), as is the
  one-time token rule of provider_binding.feature (HOOK-SERVER-TOKEN-01).

  @req:HOOK-SERVER-NO-LOCAL-PATH-01 @must
  Scenario: a folder path chosen in the channel and written by the user: no alias field of any frame holds a path
    Given device "A" is online with hello {"workspaces": ["chat", "repo"], "defaultWorkspace": "repo"}
    When chat "main" chooses the workspace "/Users/ann/repo"
    And a user writes "Please read /Users/ann/repo/NOTES.md" in chat "main" as task "first"
    Then device "A" receives task "first" for a workspace of its latest hello
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Read it."
    Then no frame the server sent in this scenario carries a local absolute path in an alias field
