// What a task that depends on others is told of them: their results after its own prompt, each in a
// `<dependency>` block with its id and stop reason — the typed `output` as JSON when it has one, else its
// final text — unless the host maps them itself (`JobOptions.dependencyPrompt`).
import type { DependencyResult } from './job-types.ts';

/** The prompt of a task whose dependencies have ended: its own, then their results. */
export function promptWithDependencies(prompt: string, dependencies: readonly DependencyResult[]): string {
  if (dependencies.length === 0) return prompt;
  const blocks = dependencies.map(({ id, result }) => {
    const body = result.output !== undefined ? JSON.stringify(result.output) : result.text;
    const error = result.error !== undefined ? ` error="${attribute(result.error)}"` : '';
    return `<dependency id="${attribute(id)}" reason="${result.reason}"${error}>\n${body}\n</dependency>`;
  });
  return `${prompt}\n\nThe tasks this task depends on have ended. Their results:\n\n${blocks.join('\n\n')}`;
}

function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\n/g, ' ');
}
