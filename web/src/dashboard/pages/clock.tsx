// The organization's sandbox clock (sandbox mode only): the time its billing runs at, moved ahead
// to watch renewals, dunning retries, trial ends and checkout expiry happen now, and reset to real
// time. Each move runs every piece of work due up to the new time before it answers.
import { api, useApi, withQuery } from "../api.ts";
import { useOrg } from "../auth.ts";
import { ErrorNote, PageHeader, Resource, useAction, when } from "../ui.tsx";

interface Clock {
  organization_id: string;
  now: string;
  offset_seconds: number;
}

const DAY = 86_400;
const MOVES: [string, number][] = [
  ["1 day", DAY],
  ["1 week", 7 * DAY],
  ["1 month", 31 * DAY],
];

function ahead(seconds: number): string {
  if (seconds < 60) return "Real time";
  const days = seconds / DAY;
  return days >= 1
    ? `${Math.round(days * 10) / 10} days ahead of real time`
    : `${Math.round(seconds / 3600)} hours ahead of real time`;
}

export function ClockPage() {
  const org = useOrg();
  const clock = useApi<Clock>(withQuery("/v1/sandbox/clock", { organization_id: org.id }));
  const action = useAction();
  const move = (path: string, body: object) =>
    action.run(async () => {
      await api.post(path, { ...body, organization_id: org.id });
      clock.reload();
    });
  return (
    <>
      <PageHeader title="Sandbox clock" />
      <p className="muted">
        Billing in this organization runs on this clock. Moving it ahead renews subscriptions,
        retries failed payments, ends trials and expires checkouts that fall due, before the page
        updates. It only moves forward; reset it to go back to real time.
      </p>
      <Resource loaded={clock} what="The clock">
        {(c) => (
          <dl className="facts">
            <div>
              <dt>Now</dt>
              <dd data-testid="clock-now">{when(c.now)}</dd>
            </div>
            <div>
              <dt>Offset</dt>
              <dd data-testid="clock-offset">{ahead(c.offset_seconds)}</dd>
            </div>
          </dl>
        )}
      </Resource>
      <div className="row">
        {MOVES.map(([label, seconds]) => (
          <button
            key={label}
            type="button"
            disabled={action.busy}
            onClick={() => void move("/v1/sandbox/clock/advance", { seconds })}
          >
            Advance {label}
          </button>
        ))}
        <button
          type="button"
          className="ghost"
          disabled={action.busy}
          onClick={() => void move("/v1/sandbox/clock/reset", {})}
        >
          Reset to real time
        </button>
      </div>
      <ErrorNote error={action.error} />
    </>
  );
}
