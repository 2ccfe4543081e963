Feature: ccweb target run prompt
  The run a send starts in the target conversation keeps naming its source (title and id) and carries the
  original message (ccweb-reply-mode-prd.md §4: 目标提示继续包含来源标题、来源 ID 和原消息内容). Each mode must say what
  happens to the run's output: one_way, that it is not returned to the source; return_and_continue, that the final
  output is returned automatically, that the target should deliver in full once really done or clearly blocked,
  and that it must not send a reply by hand. Only a reader can judge that wording: those scenarios check the facts,
  then hand the prompt to a reader (verdict: review). The harness reads the prompt through the control API
  (list-runs).

  Background:
    Given a ccweb MCP session initialized by the harness
    And a source conversation "Release planning 发布计划" and a target conversation "QA worker"

  @req:CCWEB-TARGET-PROMPT-CONTEXT-01 @must
  Scenario Outline: The <mode> target run prompt names the source and carries the original content
    When the source calls "ccweb_send_message" through tools/call with the content "请检查 nightly 构建的失败用例。" and replyMode "<mode>"
    Then the call succeeds
    And the prompt of the target run contains the source title
    And the prompt of the target run contains the source id
    And the prompt of the target run contains the original content

    Examples:
      | mode                |
      | one_way             |
      | return_and_continue |

  @req:CCWEB-TARGET-PROMPT-ONEWAY-01 @must
  Scenario: A reader judges that the one_way target run prompt says its output is not returned
    When the source calls "ccweb_send_message" through tools/call with the content "FYI: the release branch is frozen." and replyMode "one_way"
    Then the call succeeds
    And the prompt of the target run contains the original content
    And a reader must judge that the prompt of the target run says "本轮输出不会自动回传来源"

  @req:CCWEB-TARGET-PROMPT-RETURN-01 @must
  Scenario: A reader judges that the return_and_continue target run prompt explains the automatic return
    When the source calls "ccweb_send_message" through tools/call with the content "请检查 nightly 构建的失败用例，完成后汇报。" and replyMode "return_and_continue"
    Then the call succeeds
    And the prompt of the target run contains the original content
    And a reader must judge that the prompt of the target run says "系统会自动回传本轮最终输出；目标应在真正完成或明确阻塞后给出完整交付；不要为回复本请求而手工调用跨对话发送工具，避免重复"
