Feature: asking the user, per the client's elicitation capability
  A question goes to the user as a form when the client declared form mode, through a URL to a secure page for
  anything sensitive, and as a numbered text question (fallbackToText: "1. …") when the client declared no
  elicitation; tokens, passwords and keys are never collected in a form (mcp-probe-kit-v2-design.md §5 Elicitation
  处理器, 安全考虑 1 敏感信息处理; MCP 2025-11-25 client/elicitation: a server sends only the modes the client declared).
  The design does not name ask_user's arguments: the calls below pass the question as "question" (and the choices as
  "options"), and a subject whose inputSchema does not accept that cannot be driven here (not testable). Nor does it
  name the tool that elicits (§5 is a helper any tool may use): a question for a form goes to ask_user, then to every
  listed tool whose inputSchema offers an asking mode (an interactive or requirements loop), until one sends a form;
  --subject-option probekit.elicit-tool=NAME names the asking tool instead.

  @req:PROBE-ELICIT-FALLBACK-01 @must
  Scenario: A client without elicitation gets the question as numbered text
    Given a probe-kit MCP session with MCP_TOOLSET "full" whose client declares elicitation "none"
    When the harness calls "ask_user" with {"question": "Which database should the service use?", "options": ["PostgreSQL", "SQLite"]}
    Then the server sent no elicitation request
    And the call succeeds with a text
    And the result text contains "Which database should the service use?"
    And the result text asks the question with numbered options

  @req:PROBE-ELICIT-FORM-01 @must
  Scenario Outline: A client declaring <mode> gets a form, and its answer is used
    Given a probe-kit MCP session with MCP_TOOLSET "full" whose client declares elicitation "<mode>"
    And the client answers every form elicitation by filling its fields with "harness-answer-7f3a"
    When the harness asks the user "What should the new service be called?" through the subject
    Then the server sent a form elicitation with a requested schema
    And the call succeeds with a text
    And the result text contains "harness-answer-7f3a"

    Examples:
      | mode |
      | form |
      | both |

  @req:PROBE-ELICIT-URL-ONLY-01 @must
  Scenario Outline: A client declaring only url mode never gets a form (<question>)
    Given a probe-kit MCP session with MCP_TOOLSET "full" whose client declares elicitation "url"
    And the client answers every form elicitation by filling its fields with "harness-answer-7f3a"
    When the harness calls "ask_user" with {"question": "<question>"}
    Then the server sent no form elicitation
    And every elicitation sent is in url mode with a url and an elicitation id
    And the call succeeds with a text

    Examples:
      | question                                  |
      | What should the new service be called?    |
      | Please provide your GitHub access token.  |

  @req:PROBE-ELICIT-SECRET-01 @must
  Scenario Outline: A question for a <secret> is never asked in a form (client declares <mode>)
    Given a probe-kit MCP session with MCP_TOOLSET "full" whose client declares elicitation "<mode>"
    And the client answers every form elicitation by filling its fields with "harness-answer-7f3a"
    When the harness calls "ask_user" with {"question": "<question>"}
    Then the call answered a tool result
    And no form elicitation asks for a token, a password or a key

    Examples:
      | mode | secret   | question                                       |
      | form | token    | Please provide your GitHub access token.       |
      | both | token    | Please provide your GitHub access token.       |
      | form | password | What is the database password?                 |
      | both | key      | Paste the API key for the payment provider.    |

  @req:PROBE-ELICIT-SECRET-URL-01 @should
  Scenario: A client declaring both modes is sent to a secure page for a token
    Given a probe-kit MCP session with MCP_TOOLSET "full" whose client declares elicitation "both"
    And the client answers every form elicitation by filling its fields with "harness-answer-7f3a"
    When the harness calls "ask_user" with {"question": "Please provide your GitHub access token."}
    Then the server sent no form elicitation
    And the server sent a url elicitation with a url and an elicitation id
    And every elicitation sent is in url mode with a url and an elicitation id
    And the call succeeds with a text
