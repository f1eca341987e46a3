// Ink is loaded only when something interactive is drawn on a TTY, so plain and --json runs (and
// `till --help`) never pay for React. Components are written with createElement: no JSX build step.
import type { Column } from "../lib/output.ts";

/** Draws a table with Ink and returns once it is on screen. */
export async function renderInkTable<T>(
  rows: T[],
  columns: Column<T>[],
  footer?: string,
): Promise<void> {
  const [{ render, Box, Text }, React] = await Promise.all([import("ink"), import("react")]);
  const h = React.createElement;
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...cells.map((r) => r[i]!.length)),
  );
  const line = (values: string[], bold: boolean, key: string | number) =>
    h(
      Box,
      { key, flexDirection: "row", gap: 2 },
      ...values.map((v, i) =>
        h(
          Box,
          { key: i, width: i === values.length - 1 ? undefined : widths[i] },
          h(Text, { bold, wrap: "truncate-end" }, v),
        ),
      ),
    );
  const tree = h(
    Box,
    { flexDirection: "column" },
    line(
      columns.map((c) => c.header.toUpperCase()),
      true,
      "header",
    ),
    ...(rows.length === 0
      ? [h(Text, { key: "none", dimColor: true }, "(none)")]
      : cells.map((r, i) => line(r, false, i))),
    footer ? h(Text, { key: "footer", dimColor: true }, footer) : null,
  );
  const app = render(tree, { patchConsole: false });
  app.unmount();
  await app.waitUntilExit();
}

export interface SpinnerHandle {
  stop(finalText?: string): void;
}

/** A spinner on stderr while waiting (device login, checkout); a no-op off a TTY. */
export async function startSpinner(text: string): Promise<SpinnerHandle> {
  if (!process.stderr.isTTY) return { stop: () => {} };
  const [{ render, Text }, React] = await Promise.all([import("ink"), import("react")]);
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  // biome-ignore lint/correctness/noComponentHookFactories: ink and react load only on a TTY, so the component is made once they have
  function Spinner(props: { label: string }) {
    const [i, setI] = React.useState(0);
    React.useEffect(() => {
      const timer = setInterval(() => setI((n) => (n + 1) % frames.length), 80);
      return () => clearInterval(timer);
    }, []);
    return React.createElement(
      Text,
      null,
      React.createElement(Text, { color: "cyan" }, frames[i]),
      ` ${props.label}`,
    );
  }
  const app = render(React.createElement(Spinner, { label: text }), {
    stdout: process.stderr,
    patchConsole: false,
  });
  return {
    stop(finalText) {
      if (finalText) app.rerender(React.createElement(Text, null, finalText));
      app.unmount();
    },
  };
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value).replace(/\s+/g, " ");
}
