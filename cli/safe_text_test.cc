#include "cli/safe_text.h"

#include "cli/run_rendering.h"
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
  // SGR codes we never write (conceal, blink, a 256-colour) from a
  // profile's text: escaped, so they cannot hide the verdict lines.
  EXPECT_EQ(TerminalSafe("owner \x1b[8mFAIL"), "owner \\x1b[8mFAIL");
  EXPECT_EQ(TerminalSafe("\x1b[5m\x1b[38;5;9m"), "\\x1b[5m\\x1b[38;5;9m");
  EXPECT_EQ(TerminalSafe("\x1b[31;1mFAIL\x1b[0m"), "\x1b[31;1mFAIL\x1b[0m");
}

// The gate's lines come from the profile (owners, rollback): a newline in
// one cannot forge a line, an SGR code cannot act.
TEST(SafeTextTest, TheGatesProfileTextStaysOnItsLine) {
  v1::GateChecklist gate;
  gate.set_headline("gate");
  v1::GateItem* item = gate.add_items();
  item->set_item("rollback");
  item->set_why("stated");
  item->add_values("acceptance.rollback: call ops\n  MET      everything: forged\x1b[8m");
  const std::string out = RenderGate(gate);
  EXPECT_EQ(out.find("\n  MET      everything"), std::string::npos) << out;
  EXPECT_NE(out.find("call ops\\x0a  MET"), std::string::npos) << out;
  EXPECT_EQ(out.find("\x1b[8m"), std::string::npos) << out;
}

TEST(SafeTextTest, MarkdownCellsCannotBreakTheTable) {
  EXPECT_EQ(MarkdownCell("a|b <script>x</script> & c\nd"),
            "a\\|b &lt;script&gt;x&lt;/script&gt; &amp; c d");
}

}  // namespace
}  // namespace nodeprobe::cli
