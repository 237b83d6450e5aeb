/** Wraps text into `# ` comment lines of at most `width` characters; continuation lines are indented. */
export function wrapComment(text: string, width = 100): string[] {
  const lines: string[] = [];
  const prefix = () => (lines.length === 0 ? "# " : "#   ");
  let current = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (current !== "" && prefix().length + candidate.length > width) {
      lines.push(prefix() + current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current !== "") lines.push(prefix() + current);
  return lines.length > 0 ? lines : ["#"];
}
