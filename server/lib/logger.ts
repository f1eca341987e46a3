// Structured logs through pino: JSON in production, pretty lines in `till dev`.
import { pino, type Logger } from "pino";
import type { Config } from "../config.ts";

export type { Logger };

export function createLogger(log: Config["log"], destination?: NodeJS.WritableStream): Logger {
  if (log.format === "pretty" && !destination) {
    return pino({
      level: log.level,
      transport: {
        target: "pino-pretty",
        options: {
          colorize: true,
          translateTime: "HH:MM:ss.l",
          ignore: "pid,hostname",
          singleLine: true,
        },
      },
    });
  }
  return pino({ level: log.level, base: undefined }, destination ?? process.stdout);
}
