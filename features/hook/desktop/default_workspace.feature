Feature: the default workspace of single-message channels at the desktop
  A channel with one public message per interaction (X) has no room for a folder picker: the desktop declares a
  default alias in hello and the server gives a new lane "本 lane 已定的目录 > hello.defaultWorkspace > chat"; a task that
  names the default runs in that folder, not in the chat pseudo-folder (slack-hook-protocol.md 默认工作目录, §2
  workspace 是别名). The hello's own rules (the default is one of its workspaces, cleared once its folder is gone) are
  judged in handshake.feature. An X lane exists only where the X channel is negotiated (§2 "provider 能力必须双向协商 …
  X = provider:x。任一能力缺席都隐藏该渠道"), and a desktop whose hello names no default declares none (兼容:字段可选):
  either makes the scenario not applicable.

  @req:HOOK-DESKTOP-DEFAULT-WS-01 @must
  Scenario: an X mention dispatched to the hello's default workspace runs in a session of that workspace
    Given a desktop connected to the harness's hook server with features "provider-bind-v1, provider:x"
    And the desktop declares the features "provider-bind-v1" in its hello
    When the desktop's workspaces are set to "repo" as default
    And the desktop's next hello names "repo" as its default
    And the harness dispatches an X mention "mention" to the default workspace of the hello
    # 默认工作目录: "结果是这类渠道的任务只能永远落在内置「对话」伪目录上,碰不到本地仓库。做法:desktop 在握手时声明一个默认别名 …"
    Then the desktop runs "mention" in a session of workspace "repo"
    And the turn.end of "mention" has status "ok"
