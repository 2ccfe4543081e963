@robustness @subject:probekit
Feature: Robustness of the probe-kit MCP server under test against garbage (the robustness profile: -m robustness)
  Hypothesis throws batches of raw JSON-RPC at the probe-kit server, seeded from its own tools/list and mutated field by
  field: malformed lines, JSON that is no request, unknown methods, tools/call with wrong argument types, unknown
  tools, huge (megabytes) and deeply nested arguments, duplicate ids in flight, cancellations of requests in flight
  and of unknown ids. Each batch is followed by a ping. The MCP base protocol is JSON-RPC 2.0 (scenarios/sources/).
  A stdio subject is spawned by the harness and spoken to line by line, an HTTP one gets raw POSTs on a session of its
  own, and the embedded reference runs as its own process over stdio. --fuzz-frames sets how many inputs each
  property gets; a failing batch is shrunk and saved, and --replay FILE sends it again.

  @req:ROBUST-PROBEKIT-ALIVE-01 @must
  Scenario: The probe-kit server survives every batch of fuzzed JSON-RPC and still answers
    Given fuzzed JSON-RPC inputs sent to the probe-kit subject
    Then it is still there and answers the ping after every batch of them

  @req:ROBUST-PROBEKIT-ANSWER-01 @must
  Scenario: Every fuzzed request to the probe-kit server gets exactly one answer
    Given fuzzed JSON-RPC inputs sent to the probe-kit subject
    Then every request among them gets exactly one answer

  @req:ROBUST-PROBEKIT-ERROR-SHAPE-01 @must
  Scenario: The probe-kit server's answers to fuzzed JSON-RPC are JSON-RPC responses with well-formed errors
    Given fuzzed JSON-RPC inputs sent to the probe-kit subject
    Then every error among the answers has the JSON-RPC shape

  @req:ROBUST-PROBEKIT-ERROR-CODE-01 @should
  Scenario: The probe-kit server answers an unknown method with -32601 Method not found
    Given fuzzed JSON-RPC inputs sent to the probe-kit subject
    Then every unknown method among them is answered with the code -32601
