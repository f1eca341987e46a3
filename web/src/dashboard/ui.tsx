// Small shared pieces: links for the router, loading/error/empty states, copy buttons, money and
// dates, and useAction() for a button that calls the API and shows what went wrong.
import { useState, type FormEvent, type MouseEvent, type ReactNode } from "react";
import type { ApiError, Loaded } from "./api.ts";
import { navigate } from "./router.ts";

export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  "aria-current"?: "page" | undefined;
}) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.to);
  };
  return (
    <a
      href={props.to}
      onClick={onClick}
      className={props.className}
      aria-current={props["aria-current"]}
    >
      {props.children}
    </a>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="muted loading" role="status">
      <span className="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: { message: string } | string | null }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {typeof error === "string" ? error : error.message}
    </p>
  );
}

/** What to do when a list is empty: a sentence, and the `till` command that fills it. */
export function Empty({
  title,
  command,
  children,
}: {
  title: string;
  command?: string;
  children?: ReactNode;
}) {
  return (
    <div className="empty">
      <h3>{title}</h3>
      {children}
      {command ? (
        <div className="command">
          <code>{command}</code>
          <CopyButton text={command} label="Copy command" />
        </div>
      ) : null}
    </div>
  );
}

/** A 404 from an endpoint this server does not have (yet). */
export function Unavailable({ what }: { what: string }) {
  return (
    <div className="empty">
      <h3>{what} are not available on this server</h3>
      <p className="muted">
        This till server does not serve this API yet. Upgrade till to a version that includes it.
      </p>
    </div>
  );
}

/** Renders a loaded resource: spinner, error (or "unavailable" for a 404), or the content. */
export function Resource<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (loaded.error)
    return (loaded.error as ApiError).status === 404 ? (
      <Unavailable what={what} />
    ) : (
      <ErrorNote error={loaded.error} />
    );
  if (loaded.loading || loaded.data === null)
    return <Loading what={`Loading ${what.toLowerCase()}`} />;
  return <>{children(loaded.data)}</>;
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard permission (plain http on a LAN address) select-and-copy still works.
      window.prompt("Copy this:", text);
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return (
    <button type="button" className="ghost small" onClick={() => void copy()} aria-label={label}>
      {done ? "Copied" : "Copy"}
    </button>
  );
}

export function money(amount: number | null | undefined, currency = "usd"): string {
  if (amount === null || amount === undefined) return "—";
  return new Intl.NumberFormat(undefined, {
    style: "currency",
    currency: currency.toUpperCase(),
  }).format(amount / 100);
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function Badge({
  children,
  tone = "neutral",
}: {
  children: ReactNode;
  tone?: "neutral" | "good" | "warn" | "bad";
}) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/** Runs an async action for a button or form, tracking busy state and the error message. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

/** A form's submit handler; an async handler reports its own errors (useAction's run). */
export function submit(handler: (data: FormData, form: HTMLFormElement) => unknown) {
  return (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    void handler(new FormData(e.currentTarget), e.currentTarget);
  };
}

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  required?: boolean;
  placeholder?: string;
  defaultValue?: string;
  autoComplete?: string;
  min?: number;
  step?: string;
}) {
  const { label, ...input } = props;
  return (
    <label className="field">
      <span>{label}</span>
      <input id={`f-${props.name}`} {...input} />
    </label>
  );
}

/** A create form's footer: its error, the submit button (`busyLabel` while the request runs), Cancel. */
export function FormActions({
  action,
  label,
  busyLabel,
  onCancel,
}: {
  action: { busy: boolean; error: { message: string } | string | null };
  label: string;
  busyLabel?: string;
  onCancel: () => void;
}) {
  return (
    <>
      <ErrorNote error={action.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy && busyLabel ? busyLabel : label}
        </button>
        <button type="button" className="ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      <div className="actions">{children}</div>
    </header>
  );
}

export type Column<T> = [heading: string, cell: (row: T) => ReactNode];

export function Table<T extends { id: string }>({
  rows,
  columns,
  label,
}: {
  rows: T[];
  columns: Column<T>[];
  label?: string;
}) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map(([h]) => (
              <th key={h}>{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              {columns.map(([h, cell]) => (
                <td key={h}>{cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
