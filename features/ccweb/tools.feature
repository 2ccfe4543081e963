Feature: ccweb public tool contract
  A ccweb MCP server offers new models exactly one send tool, ccweb_send_message, whose required replyMode
  chooses between one_way and return_and_continue, with no default, and whose description carries the rules for
  choosing; the old ccweb_request_reply is no longer listed (ccweb-reply-mode-prd.md 目标, §1 公开工具契约).

  Background:
    Given a ccweb MCP session initialized by the harness
    When the harness lists the tools

  @req:CCWEB-TOOL-SEND-SINGLE-01 @must
  Scenario: tools/list offers exactly one send tool, ccweb_send_message
    Then exactly one listed tool is named "ccweb_send_message"

  @req:CCWEB-SCHEMA-FIELDS-01 @must
  Scenario Outline: The input schema of ccweb_send_message has the string property <property>
    Then the input schema of "ccweb_send_message" has the property "<property>" of type "string"

    Examples:
      | property             |
      | targetConversationId |
      | content              |

  @req:CCWEB-SCHEMA-REPLYMODE-ENUM-01 @must
  Scenario: replyMode allows exactly one_way and return_and_continue
    Then the property "replyMode" of the input schema of "ccweb_send_message" allows exactly the values "one_way" and "return_and_continue"

  @req:CCWEB-SCHEMA-REQUIRED-01 @must
  Scenario: The input schema lists replyMode as required
    Then the input schema of "ccweb_send_message" lists "replyMode" as required

  @req:CCWEB-SCHEMA-NODEFAULT-01 @must
  Scenario: Nothing in the input schema gives replyMode a default
    Then nothing in the input schema of "ccweb_send_message" gives "replyMode" a default

  @req:CCWEB-DESC-MODES-01 @must
  Scenario: The description of ccweb_send_message names both reply modes
    Then the description of "ccweb_send_message" mentions "one_way"
    And the description of "ccweb_send_message" mentions "return_and_continue"

  @req:CCWEB-DESC-RULES-01 @must
  Scenario: A reader judges the selection rules in the description of ccweb_send_message
    Then the description of "ccweb_send_message" mentions "one_way"
    And the description of "ccweb_send_message" mentions "return_and_continue"
    And a reader must judge that the description of "ccweb_send_message" says "仅当来源不需要目标结果时使用 one_way；分析、实现、测试、验收、完成后汇报或来源后续依赖结果时，必须使用 return_and_continue"

  @req:CCWEB-ALIAS-UNLISTED-01 @must
  Scenario: tools/list does not list ccweb_request_reply
    Then no listed tool is named "ccweb_request_reply"
