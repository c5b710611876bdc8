// File: safe_text_test.cc
#include "cli/safe_text.h"

#include "gtest/gtest.h"

namespace nodeprobe::cli {
namespace {

TEST(SafeTextTest, ControlsAndBidiAreWrittenOut) {
  EXPECT_EQ(EscapeControls("plain text, caf\xc3\xa9"), "plain text, caf\xc3\xa9");
  EXPECT_EQ(EscapeControls("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(EscapeControls("a\nb"), "a\\x0ab");
  EXPECT_EQ(EscapeControls("a\nb", true), "a\nb");
  EXPECT_EQ(EscapeControls("a\tb"), "a\tb");
  EXPECT_EQ(EscapeControls("x\xe2\x80\xaey"), "x\\u{202E}y");   // RLO
  EXPECT_EQ(EscapeControls("x\xe2\x81\xa6y"), "x\\u{2066}y");   // LRI
  EXPECT_EQ(EscapeControls("x\xc2\x9by"), "x\\u{009B}y");       // C1 CSI
  EXPECT_EQ(EscapeControls("x\xffy"), "x\\xffy");               // not UTF-8
  EXPECT_EQ(EscapeControls("x\xc0\xafy"), "x\\xc0\\xafy");      // overlong
  EXPECT_EQ(EscapeControls("x\xe2\x80"), "x\\xe2\\x80");        // cut short
}

TEST(SafeTextTest, TheTerminalKeepsOurColoursAndNothingElse) {
  EXPECT_EQ(TerminalSafe("\x1b[1;31mFAIL\x1b[0m\n"), "\x1b[1;31mFAIL\x1b[0m\n");
  EXPECT_EQ(TerminalSafe("gpu\x1b]0;title\x07 ok"), "gpu\\x1b]0;title\\x07 ok");
  EXPECT_EQ(TerminalSafe("a\x1b[2Kb"), "a\\x1b[2Kb");
}

TEST(SafeTextTest, MarkdownCellsCannotBreakTheTable) {
  EXPECT_EQ(MarkdownCell("a|b <script>x</script> & c\nd"),
            "a\\|b &lt;script&gt;x&lt;/script&gt; &amp; c d");
}

}  // namespace
}  // namespace nodeprobe::cli
