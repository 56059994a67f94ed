// A tool that records what it ran with, for tests that check which calls really ran (an approval let one
// through, a restart did not run one again, a hook denied one).
import { z } from 'zod';
import { type AnyTool, defineTool, type ToolAccess } from '../../src/tools/define-tool.ts';

export type RecordingToolOptions = {
  name: string;
  description: string;
  access: ToolAccess;
  /** The one string argument the tool takes (and records). */
  field: string;
  /** What it answers, given that argument. */
  answer: (value: string) => string;
  concurrencySafe?: boolean;
};

/** The tool, and the values of `field` it ran with, in order. */
export function recordingTool(options: RecordingToolOptions): { tool: AnyTool; ran: string[] } {
  const ran: string[] = [];
  const { field, answer, ...definition } = options;
  const tool = defineTool({
    ...definition,
    input: z.object({ [field]: z.string() }),
    run: async (input: Record<string, string>) => {
      const value = input[field]!;
      ran.push(value);
      return answer(value);
    },
  });
  return { tool, ran };
}
