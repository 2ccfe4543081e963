Feature: Group relay frames: group.message
  Stages 14 and 19 of slack-hook-protocol.md §5. The server forwards a group message to the desktops
  of its bound members: provider (an open set), optional recipient {bindingId, principalId}, chatId,
  threadId (null for the main stream), messageId, chatName, author {name, isBot?, id?, username?},
  text, optional fileNames and sentAt. The Telegram author id is a canonical positive decimal within
  52 bits and the username matches [A-Za-z0-9_]{1,32}; text is at most 8,192 UTF-16 units, at most
  20 file names of at most 256 units each, and a message carries text or at least one file name.

  @req:HOOK-FRAME-GROUP-SHAPE-01 @must
  Scenario Outline: A valid group.message is accepted (<sample>)
    Given the sample frame "group.message/<sample>"
    Then the frame is accepted

    Examples:
      | sample          |
      | text            |
      | files-only      |
      | with-recipient  |
      | telegram-author |
      | thread          |

  @req:HOOK-FRAME-GROUP-SHAPE-01 @must
  Scenario Outline: group.message with <pointer> set to <value> is accepted
    Given the sample frame "group.message/text"
    When the field "<pointer>" is set to <value>
    Then the frame is accepted

    Examples: provider is an open set and chatId is only checked for being a non-empty string
      | pointer                | value           |
      | /payload/provider      | "discord"       |
      | /payload/chatId        | "C0123ABC"      |
      | /payload/chatId        | "12345"         |
      | /payload/threadId      | "77"            |
      | /payload/author/isBot  | false           |
      | /payload/text          | " "             |

  @req:HOOK-FRAME-GROUP-SHAPE-01 @must
  Scenario Outline: group.message with <pointer> set to <value> is rejected
    Given the sample frame "group.message/text"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                | value             |
      | /payload/provider      | ""                |
      | /payload/provider      | 5                 |
      | /payload/chatId        | ""                |
      | /payload/chatId        | -1001234567890    |
      | /payload/chatId        | null              |
      | /payload/threadId      | ""                |
      | /payload/threadId      | 77                |
      | /payload/messageId     | ""                |
      | /payload/messageId     | 4242              |
      | /payload/chatName      | ""                |
      | /payload/chatName      | 5                 |
      | /payload/author        | null              |
      | /payload/author        | "Ada"             |
      | /payload/author        | ["Ada"]           |
      | /payload/author/name   | ""                |
      | /payload/author/name   | null              |
      | /payload/author/isBot  | "no"              |
      | /payload/author/isBot  | null              |
      | /payload/text          | null              |
      | /payload/text          | 5                 |
      | /payload/text          | ["hi"]            |
      | /payload/sentAt        | 0                 |
      | /payload/sentAt        | -1                |
      | /payload/sentAt        | 1767225590000.5   |
      | /payload/sentAt        | "1767225590000"   |
      | /payload/sentAt        | null              |
      | /payload/sentAt        | 9007199254740992  |

  @req:HOOK-FRAME-GROUP-SHAPE-01 @must
  Scenario Outline: group.message without <pointer> is rejected
    Given the sample frame "group.message/telegram-author"
    When the field "<pointer>" is removed
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer              |
      | /payload/provider    |
      | /payload/chatId      |
      | /payload/messageId   |
      | /payload/author      |
      | /payload/author/name |
      | /payload/text        |
      | /payload/sentAt      |

  @req:HOOK-FRAME-PRESENT-NULL-01 @must
  Scenario Outline: group.message without <field> is rejected even though it may be null
    Given the sample frame "group.message/<sample>"
    When the field "/payload/<field>" is removed
    Then the frame is rejected at "/payload/<field>"

    Examples:
      | sample | field    |
      | text   | threadId |
      | thread | chatName |
      | thread | threadId |
      | text   | chatName |

  # -- recipient ---------------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-GROUP-RECIPIENT-01 @must
  Scenario Outline: group.message recipient with <pointer> set to <value> is rejected
    Given the sample frame "group.message/with-recipient"
    When the field "<pointer>" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | pointer                         | value      |
      | /payload/recipient              | null       |
      | /payload/recipient              | "bind-1"   |
      | /payload/recipient              | []         |
      | /payload/recipient/bindingId    | ""         |
      | /payload/recipient/bindingId    | null       |
      | /payload/recipient/principalId  | ""         |
      | /payload/recipient/principalId  | 123456789  |

  @req:HOOK-FRAME-GROUP-RECIPIENT-01 @must
  Scenario Outline: group.message recipient without <field> is rejected
    Given the sample frame "group.message/with-recipient"
    When the field "/payload/recipient/<field>" is removed
    Then the frame is rejected at "/payload/recipient/<field>"

    Examples:
      | field       |
      | bindingId   |
      | principalId |

  @req:HOOK-FRAME-GROUP-RECIPIENT-01 @must
  Scenario: group.message recipient may carry unknown keys
    Given the sample frame "group.message/with-recipient"
    When the field "/payload/recipient/generation" is set to 3
    Then the frame is accepted

  @req:HOOK-FRAME-GROUP-RECIPIENT-01 @must
  Scenario: group.message without a recipient (an old producer) is accepted
    Given the sample frame "group.message/with-recipient"
    When the field "/payload/recipient" is removed
    Then the frame is accepted

  # -- author id / username ----------------------------------------------------------------------------------------

  @req:HOOK-FRAME-GROUP-AUTHOR-ID-01 @must
  Scenario Outline: A Telegram author id <value> is canonical
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/id" is set to <value>
    Then the frame is accepted

    Examples:
      | value                |
      | "1"                  |
      | "123456789"          |
      | "7000000000"         |
      | "4503599627370495"   |

  @req:HOOK-FRAME-GROUP-AUTHOR-ID-01 @must
  Scenario Outline: A Telegram author id <value> is not canonical
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/id" is set to <value>
    Then the frame is rejected at "/payload/author/id"

    Examples:
      | value                    |
      | "0"                      |
      | "01"                     |
      | "-5"                     |
      | "+5"                     |
      | "12a"                    |
      | ""                       |
      | " 1"                     |
      | "1 "                     |
      | "1.0"                    |
      | "1e3"                    |
      | "1_000"                  |
      | "4503599627370496"       |
      | "12345678901234567890"   |
      | "１２３"                 |
      | "١٢٣"                    |
      | 123456789                |
      | null                     |

  @req:HOOK-FRAME-GROUP-AUTHOR-ID-01 @must
  Scenario: A Telegram author id with a trailing newline is not canonical
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/id" is set to "123456789\n"
    Then the frame is rejected at "/payload/author/id"

  @req:HOOK-FRAME-GROUP-AUTHOR-ID-01 @must
  Scenario: An author without an id (an old producer) is accepted
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/id" is removed
    Then the frame is accepted

  @req:HOOK-FRAME-GROUP-AUTHOR-USERNAME-01 @must
  Scenario Outline: A Telegram username <value> is valid
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/username" is set to <value>
    Then the frame is accepted

    Examples:
      | value                                 |
      | "a"                                   |
      | "_"                                   |
      | "Ada_Lovelace_1815"                   |
      | "abcdefghijklmnopqrstuvwxyz_ABCDE"    |

  @req:HOOK-FRAME-GROUP-AUTHOR-USERNAME-01 @must
  Scenario Outline: A Telegram username <value> is not valid
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/username" is set to <value>
    Then the frame is rejected at "/payload/author/username"

    Examples:
      | value                                  |
      | ""                                     |
      | "abcdefghijklmnopqrstuvwxyz_ABCDEF"    |
      | "ada-l"                                |
      | "@ada_l"                               |
      | "ada l"                                |
      | "ada.l"                                |
      | "adä"                                  |
      | "ａｄａ"                               |
      | 5                                      |
      | null                                   |

  @req:HOOK-FRAME-GROUP-AUTHOR-USERNAME-01 @must
  Scenario: A Telegram username with a trailing newline is not valid
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/username" is set to "ada_l\n"
    Then the frame is rejected at "/payload/author/username"

  @req:HOOK-FRAME-GROUP-AUTHOR-USERNAME-01 @must
  Scenario Outline: A Telegram username of <n> characters is <verdict>
    Given the sample frame "group.message/telegram-author"
    When the field "/payload/author/username" is set to a string of <n> "x" characters
    Then the frame is <verdict>

    Examples:
      | n  | verdict                                  |
      | 32 | accepted                                 |
      | 33 | rejected at "/payload/author/username"   |

  # -- text and files ----------------------------------------------------------------------------------------------

  @req:HOOK-FRAME-GROUP-TEXT-LIMIT-01 @must
  Scenario Outline: A group text of <n> "<char>" characters is <verdict>
    Given the sample frame "group.message/text"
    When the field "/payload/text" is set to a string of <n> "<char>" characters
    Then the frame is <verdict>

    Examples: counted in UTF-16 code units (an emoji is 2); the upstream limit is 8,192 although the spec says 4k
      | n    | char | verdict                        |
      | 4097 | a    | accepted                       |
      | 8192 | a    | accepted                       |
      | 8193 | a    | rejected at "/payload/text"    |
      | 8192 | 汉   | accepted                       |
      | 8193 | 汉   | rejected at "/payload/text"    |
      | 4096 | 😀   | accepted                       |
      | 4097 | 😀   | rejected at "/payload/text"    |

  @req:HOOK-FRAME-GROUP-CONTENT-01 @must
  Scenario: A group message with empty text and no file names is rejected at text
    Given the sample frame "group.message/text"
    When the field "/payload/text" is set to ""
    Then the frame is rejected at "/payload/text"

  @req:HOOK-FRAME-GROUP-CONTENT-01 @must
  Scenario: A group message with empty text and an empty file list is rejected at text
    Given the sample frame "group.message/files-only"
    When the field "/payload/fileNames" is set to []
    Then the frame is rejected at "/payload/text"

  @req:HOOK-FRAME-GROUP-CONTENT-01 @must
  Scenario: A files-only group message without its file list is rejected at text
    Given the sample frame "group.message/files-only"
    When the field "/payload/fileNames" is removed
    Then the frame is rejected at "/payload/text"

  @req:HOOK-FRAME-GROUP-CONTENT-01 @must
  Scenario: A group message with text and an empty file list is accepted
    Given the sample frame "group.message/text"
    When the field "/payload/fileNames" is set to []
    Then the frame is accepted

  @req:HOOK-FRAME-GROUP-FILES-01 @must
  Scenario Outline: group.message fileNames <value> is rejected at <pointer>
    Given the sample frame "group.message/files-only"
    When the field "/payload/fileNames" is set to <value>
    Then the frame is rejected at "<pointer>"

    Examples:
      | value                | pointer               |
      | "screenshot.png"     | /payload/fileNames    |
      | null                 | /payload/fileNames    |
      | {}                   | /payload/fileNames    |
      | ["a.png",""]         | /payload/fileNames/1  |
      | ["a.png",5]          | /payload/fileNames/1  |
      | [null]               | /payload/fileNames/0  |

  @req:HOOK-FRAME-GROUP-FILES-01 @must
  Scenario: Repeated file names are accepted
    Given the sample frame "group.message/files-only"
    When the field "/payload/fileNames" is set to ["a.png","a.png"]
    Then the frame is accepted

  @req:HOOK-FRAME-GROUP-FILES-01 @must
  Scenario Outline: <n> file names are <verdict>
    Given the sample frame "group.message/files-only"
    When the field "/payload/fileNames" is set to a list of <n> items like "file-{i}.png"
    Then the frame is <verdict>

    Examples:
      | n  | verdict                            |
      | 1  | accepted                           |
      | 20 | accepted                           |
      | 21 | rejected at "/payload/fileNames"   |

  @req:HOOK-FRAME-GROUP-FILES-01 @must
  Scenario Outline: A file name of <n> "<char>" characters is <verdict>
    Given the sample frame "group.message/files-only"
    When the field "/payload/fileNames/1" is set to a string of <n> "<char>" characters
    Then the frame is <verdict>

    Examples: counted in UTF-16 code units (an emoji is 2)
      | n   | char | verdict                              |
      | 256 | a    | accepted                             |
      | 257 | a    | rejected at "/payload/fileNames/1"   |
      | 128 | 😀   | accepted                             |
      | 129 | 😀   | rejected at "/payload/fileNames/1"   |
      | 256 | 文   | accepted                             |
