Feature: Channel commands: /stop and /new
  /stop cancels the running task (task.cancel; the desktop ends it cancelled); /new archives the current
  generation's session (session.archive with its externalKey) and the next message starts a new one
  (slack-hook-protocol.md §1 取消 / 归档, §5 task.cancel, 阶段 8).

  @req:HOOK-SERVER-STOP-01 @must
  Scenario: /stop sends task.cancel for the running task; its cancelled turn.end finalizes the message
    Given device "A" is online
    When a user writes "Crawl the whole wiki" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" reports progress "Crawling page 1" for "first"
    And a user writes "/stop" in chat "main"
    Then device "A" receives task.cancel for "first"
    When device "A" ends "first" cancelled
    Then the message of "first" is "cancelled"
    And chat "main" has 1 message

  @req:HOOK-SERVER-STOP-02 @must
  Scenario: /stop after an earlier task of the chat has ended cancels the task running now
    Given device "A" is online
    When a user writes "Summarise the README" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Summarised."
    Then the message of "first" is "done"
    When a user writes "Crawl the whole wiki" in chat "main" as task "second"
    Then device "A" receives task "second"
    When device "A" acks "second" as accepted
    And device "A" reports progress "Crawling page 1" for "second"
    And a user writes "/stop" in chat "main"
    # §1: "/stop 中断在跑任务": the running task is "second"; "first" has ended
    Then device "A" receives task.cancel for "second"

  @req:HOOK-SERVER-NEW-01 @must
  Scenario: /new archives the session of the current externalKey; the next message gets a new one
    Given device "A" is online
    When a user writes "Remember the number 7" in chat "main" as task "first"
    Then device "A" receives task "first"
    When device "A" acks "first" as accepted
    And device "A" ends "first" ok with "Noted."
    And a user writes "/new" in chat "main"
    Then device "A" receives session.archive for the externalKey of "first"
    When a user writes "What number did I say?" in chat "main" as task "second"
    Then device "A" receives task "second"
    And task "second" has another externalKey than "first"
