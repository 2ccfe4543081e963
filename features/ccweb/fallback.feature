Feature: ccweb Codex App fallback tool list
  The Codex App fallback (dynamic) tool list is filtered from the same tool definitions as tools/list by the
  communication-tool allowlist and given a namespace; it is never a copy of the wording or the schema, it holds
  no task-board, image or form tool, and it no longer holds ccweb_request_reply (ccweb-reply-mode-prd.md §1, §3).
  The harness reads it through the control API (fallback-tools).

  Background:
    Given a ccweb MCP session initialized by the harness
    When the harness lists the tools
    And the harness reads the Codex App fallback tool list

  @req:CCWEB-FALLBACK-SAME-DEF-01 @must
  Scenario: Every fallback tool is its tools/list definition, with a namespace
    Then every fallback tool has a namespace
    And every fallback tool has the description and input schema of the listed tool of the same name

  @req:CCWEB-FALLBACK-SEND-01 @must
  Scenario: The fallback list offers ccweb_send_message
    Then the fallback list has exactly one tool named "ccweb_send_message"

  @req:CCWEB-FALLBACK-FILTER-01 @must
  Scenario Outline: The fallback list holds no <kind> tool
    Then no fallback tool's name matches "<pattern>"

    Examples:
      | kind          | pattern      |
      | task-board    | *task_board* |
      | image display | *image*      |
      | user form     | *form*       |

  @req:CCWEB-ALIAS-UNLISTED-02 @must
  Scenario: The fallback list does not hold ccweb_request_reply
    Then no fallback tool is named "ccweb_request_reply"
