Feature: long-running start_* calls as tasks
  start_bugfix and start_feature need Tasks support (迁移优先级); a task has a taskId, a status (queued | working |
  input_required | completed | failed | cancelled), createdAt, lastUpdatedAt, ttl and pollInterval; a completed or
  failed task cannot be cancelled (mcp-probe-kit-v2-design.md §4 Tasks 管理器; MCP 2025-11-25 basic/utilities/tasks).
  The design defines no input for the workflows: each is called with arguments its own inputSchema accepts, the first
  set of them the tool answers with a success as an ordinary call (so a task runs the work the tool really does).

  @req:PROBE-TASK-CREATE-01 @must
  Scenario Outline: A task-augmented call of <tool> answers a task
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "<tool>" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    Then the created task has a task id and a known status

    Examples:
      | tool          |
      | start_bugfix  |
      | start_feature |

  @req:PROBE-TASK-TTL-01 @must
  Scenario: The created task carries a ttl and a pollInterval
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_bugfix" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    Then the created task carries a ttl and a pollInterval

  @req:PROBE-TASK-GET-01 @must
  Scenario: tasks/get answers the task's status
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_bugfix" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    And the harness gets the task
    Then tasks/get answers the same task id with a known status and timestamps

  @req:PROBE-TASK-RESULT-01 @must
  Scenario: tasks/result answers the tool result of the completed task
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_bugfix" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    And the harness asks for the task result
    Then the task result is a tool result with a non-empty text
    And the task status is "completed"

  @req:PROBE-TASK-LIST-01 @must
  Scenario: tasks/list holds the created task
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_feature" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    And the harness lists the tasks
    Then the task list holds the task

  @req:PROBE-TASK-CANCEL-01 @must
  Scenario: Cancelling a working task makes it cancelled
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_feature" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    And the harness cancels the task while it is not terminal
    Then the cancel succeeded
    And the task status is "cancelled"

  @req:PROBE-TASK-CANCEL-TERMINAL-01 @must
  Scenario: Cancelling a task that has ended is refused
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_bugfix" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    And the harness waits until the task has ended
    And the harness cancels the task
    Then the cancel is refused with a JSON-RPC error
    And the task status is still the one it ended with

  @req:PROBE-TASK-EXPIRY-01 @must
  Scenario: A task whose ttl has passed is cleaned up
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_bugfix" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 1500
    And the harness lists the tasks
    Then the task list holds the task
    When the harness waits until the task's ttl has passed
    Then tasks/get no longer finds the task within 1 second
    And the task list does not hold the task

  @req:PROBE-TASK-RESULT-META-01 @must
  Scenario: tasks/result names its task in the related-task _meta
    Given a probe-kit MCP session with MCP_TOOLSET "full"
    When the harness calls "start_bugfix" with arguments valid against its input schema, strings set to "The login page returns HTTP 500 after a password reset", as a task with ttl 60000
    And the harness asks for the task result
    Then the task result carries the related-task _meta naming the task
