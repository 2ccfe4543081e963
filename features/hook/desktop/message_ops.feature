Feature: Message operations at the desktop (msg.op, msg.op.result)
  The desktop's agent operates on its channel thread (send, edit, delete, react, typing, media) through msg.op, scoped
  by the turn's externalKey; the server resolves the target and answers msg.op.result, paired by opId
  (UPSTREAM-FACTS.md: an optional family, feature msg-op-v1, newer than the spec document). Without msg-op-v1 in
  welcome nothing is sent (slack-hook-protocol.md §3 "新端在能力缺席时不会发送它们"). The agent acts, and the desktop shows
  each op's outcome, through its control API (docs/control-api.md "Queries, gateway tools, group relay and message
  operations (desktop)": message-op, state.messageOps). A scenario whose desktop does not declare msg-op-v1 in
  its own hello is not applicable.

  @req:HOOK-DESKTOP-MSGOP-01 @must
  Scenario Outline: the agent's <kind> goes out as msg.op and its result reaches the agent
    Given a desktop connected to the harness's hook server with features "msg-op-v1"
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "done", "waitForCancel": true}
    When the harness dispatches "task"
    Then the desktop acks "task" as accepted with a session id
    When the agent of "task" asks for the message operation "o1" <action>
    # UPSTREAM-FACTS: "server-resolved message operations send/edit/delete/react/typing/media scoped by externalKey"
    Then the desktop sends msg.op "o1" for "task" with its action
    When the harness answers msg.op "o1" with ok and message id "tg-1001"
    Then the desktop's state shows message operation "o1" ok with message id "tg-1001"

    Examples:
      | kind   | action                                                                                     |
      | send   | {"kind": "send", "text": "Hello from the agent."}                                          |
      | edit   | {"kind": "edit", "messageId": "tg-1000", "text": "Edited.", "tier": "plain"}               |
      | delete | {"kind": "delete", "messageId": "tg-1000"}                                                 |
      | react  | {"kind": "react", "targetMessageId": "tg-1000", "emoji": "👍"}                              |
      | typing | {"kind": "typing"}                                                                         |
      | media  | {"kind": "media", "items": [{"name": "a.png", "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="}]} |

  @req:HOOK-DESKTOP-MSGOP-01 @must
  Scenario: a failed operation's error reaches the agent as sent
    Given a desktop connected to the harness's hook server with features "msg-op-v1"
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "done", "waitForCancel": true}
    When the harness dispatches "task"
    Then the desktop acks "task" as accepted with a session id
    When the agent of "task" asks for the message operation "o1" {"kind": "send", "text": "Hello."}
    Then the desktop sends msg.op "o1" for "task" with its action
    When the harness answers msg.op "o1" with the error "RATE_LIMITED"
    Then the desktop's state shows message operation "o1" failed with the error "RATE_LIMITED"

  @req:HOOK-DESKTOP-MSGOP-02 @must
  Scenario Outline: without msg-op-v1 in welcome no msg.op is sent (welcome: <features>)
    Given a desktop connected to the harness's hook server with features "<features>"
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "done", "waitForCancel": true}
    When the harness dispatches "task"
    Then the desktop acks "task" as accepted with a session id
    When the agent of "task" asks for the message operation "o1" {"kind": "send", "text": "Hello."}
    # §3: "老端会丢弃未知 provider 帧,新端在能力缺席时不会发送它们。"
    Then the desktop answers message operation "o1" as unavailable
    And the desktop sent no frame of the types "msg.op"

    Examples:
      | features                                 |
      | none                                     |
      | group-relay-v1, provider-bind-v1, slack-tools |

  @req:HOOK-DESKTOP-MSGOP-03 @must
  Scenario: each result belongs to the op of its opId
    Given a desktop connected to the harness's hook server with features "msg-op-v1"
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "done", "waitForCancel": true}
    When the harness dispatches "task"
    Then the desktop acks "task" as accepted with a session id
    When the agent of "task" asks for the message operation "o1" {"kind": "send", "text": "First."}
    And the agent of "task" asks for the message operation "o2" {"kind": "send", "text": "Second."}
    Then the desktop sends msg.op "o1"
    And the desktop sends msg.op "o2"
    When the harness answers a msg.op the desktop never sent
    # UPSTREAM-FACTS: msg.op / msg.op.result, paired by opId
    Then the desktop's state shows message operation "o1" pending
    And the desktop's state shows message operation "o2" pending
    When the harness answers msg.op "o2" with ok and message id "tg-2"
    And the harness answers msg.op "o1" with ok and message id "tg-1"
    Then the desktop's state shows message operation "o2" ok with message id "tg-2"
    And the desktop's state shows message operation "o1" ok with message id "tg-1"

  @req:HOOK-DESKTOP-MSGOP-04 @must
  Scenario: malformed results are dropped, the op stays pending and the connection open
    Given a desktop connected to the harness's hook server with features "msg-op-v1"
    And the desktop's next turn is scripted as {"progress": ["working"], "finalText": "done", "waitForCancel": true}
    When the harness dispatches "task"
    Then the desktop acks "task" as accepted with a session id
    When the agent of "task" asks for the message operation "o1" {"kind": "send", "text": "Hello."}
    Then the desktop sends msg.op "o1"
    When the harness sends the malformed msg.op.result frames of "o1"
    # §2: "两端收帧唯一入口是 parseHookMessage,手写校验、零依赖、坏帧返回 ok:false + 字段路径,绝不抛异常"
    Then the desktop's state shows message operation "o1" pending
    And the connection stays open and the desktop answers a ping
    When the harness answers msg.op "o1" with ok and message id "tg-1"
    Then the desktop's state shows message operation "o1" ok with message id "tg-1"
