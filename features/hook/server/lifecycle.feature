Feature: Online and offline notices follow the device's lifecycle-announcement preference
  The preference starts as hello.lifecycleAnnouncement (missing means true, as for an old desktop); once the server
  declared lifecycle-announcement-v1, lifecycle.preference overrides it at once (slack-hook-protocol.md §3 兼容策略,
  上下线通知偏好).

  @req:HOOK-SERVER-LIFECYCLE-01 @must
  Scenario: a hello without lifecycleAnnouncement gets the online notice, the disconnect the offline notice
    Given device "A" is online
    Then the channel shows an online notice for device "A"
    When device "A" closes its connection
    Then the channel shows an offline notice for device "A"

  @req:HOOK-SERVER-LIFECYCLE-02 @must
  Scenario: lifecycleAnnouncement false in hello: neither notice
    Given device "A" is online with hello {"lifecycleAnnouncement": false}
    When device "A" closes its connection
    Then the channel shows no online notice for device "A"
    And the channel shows no offline notice for device "A"

  @req:HOOK-SERVER-LIFECYCLE-03 @must
  Scenario: lifecycle.preference off after an announced hello: no offline notice
    Given device "A" is online with hello {"lifecycleAnnouncement": true}
    And the server declares "lifecycle-announcement-v1"
    Then the channel shows an online notice for device "A"
    When device "A" turns its lifecycle announcement off
    And device "A" closes its connection
    Then the channel shows no offline notice for device "A"

  @req:HOOK-SERVER-LIFECYCLE-03 @must
  Scenario: lifecycle.preference on after a silent hello: the offline notice is shown
    Given device "A" is online with hello {"lifecycleAnnouncement": false}
    And the server declares "lifecycle-announcement-v1"
    When device "A" turns its lifecycle announcement on
    And device "A" closes its connection
    Then the channel shows an offline notice for device "A"

  @req:HOOK-SERVER-LIFECYCLE-04 @must
  Scenario: without lifecycle-announcement-v1 in welcome a lifecycle.preference does not change the preference
    Given device "A" is online with hello {"lifecycleAnnouncement": true}
    And the server does not declare "lifecycle-announcement-v1"
    Then the channel shows an online notice for device "A"
    When device "A" turns its lifecycle announcement off
    And device "A" closes its connection
    Then the channel shows an offline notice for device "A"
