Feature: ccweb calls: immediate return, refused reply modes and unknown tools
  Every call returns at once: no mode waits for the target's run (ccweb-reply-mode-prd.md 目标). replyMode is
  one_way or return_and_continue and nothing else (§1; 非目标: no third mode): any other value is refused with a
  tool error that says why, and nothing is sent. Accepting the hidden old name does not mean accepting any name:
  a tool name the dispatcher does not know is refused with a text, and nothing is sent (§2).

  Background:
    Given a ccweb MCP session initialized by the harness
    And a source conversation "Release planning" and a target conversation "QA worker"

  @req:CCWEB-CALL-ASYNC-01 @must
  Scenario Outline: A ccweb_send_message call with replyMode <mode> returns while the target run is still running
    When the source calls "ccweb_send_message" through tools/call with the content "Check the nightly build." and replyMode "<mode>"
    Then the call succeeds
    And the target conversation has exactly one target run, still running

    Examples:
      | mode                |
      | one_way             |
      | return_and_continue |

  @req:CCWEB-CALL-ASYNC-01 @must
  Scenario Outline: A ccweb_request_reply call through <entry> returns while the target run is still running
    When the source calls "ccweb_request_reply" through <entry> with the content "Check the nightly build and report back."
    Then the call succeeds
    And the target conversation has exactly one target run, still running

    Examples:
      | entry                   |
      | tools/call              |
      | the legacy dynamic call |

  @req:CCWEB-CALL-INVALID-MODE-01 @must
  Scenario Outline: replyMode <mode> through <entry> is refused with a tool error and nothing is sent
    When the source calls "ccweb_send_message" through <entry> with the content "Check the nightly build." and replyMode <mode>
    Then the call result is an error with a text
    And nothing was sent to the target conversation

    Examples:
      | mode                  | entry                   |
      | "wait_for_reply"      | tools/call              |
      | "request_reply"       | tools/call              |
      | "ONE_WAY"             | tools/call              |
      | "return-and-continue" | tools/call              |
      | ""                    | tools/call              |
      | null                  | tools/call              |
      | true                  | tools/call              |
      | ["one_way"]           | tools/call              |
      | "wait_for_reply"      | the legacy dynamic call |
      | "ONE_WAY"             | the legacy dynamic call |

  @req:CCWEB-CALL-UNKNOWN-TOOL-01 @must
  Scenario Outline: The unknown tool name <name> through <entry> is refused with a text and nothing is sent
    When the source calls "<name>" through <entry> with the content "Check the nightly build." and replyMode "one_way"
    Then the call is refused with a text
    And nothing was sent to the target conversation

    Examples:
      | name                  | entry                   |
      | ccweb_send_messages   | tools/call              |
      | ccweb_request_replies | tools/call              |
      | CCWEB_REQUEST_REPLY   | tools/call              |
      | ccweb_reply           | tools/call              |
      | ccweb_request_replies | the legacy dynamic call |
      | ccweb_reply           | the legacy dynamic call |
