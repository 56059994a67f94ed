// A TypeDoc plugin (typedoc.json loads it): names each module of the API reference after the import path
// a user writes (`agentchart`, `agentchart/testing`, `agentchart/openai`), not after its file in dist/.
import { Converter } from 'typedoc';

const importPaths = new Map([
  ['index', 'agentchart'],
  ['testing', 'agentchart/testing'],
  ['providers/anthropic', 'agentchart/anthropic'],
  ['providers/openai', 'agentchart/openai'],
  ['providers/ai-sdk', 'agentchart/ai-sdk'],
  ['postgres', 'agentchart/postgres'],
  ['bullmq', 'agentchart/bullmq'],
]);

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.children ?? []) {
      const name = importPaths.get(module.name);
      if (name === undefined)
        throw new Error(`the API reference has a module no import path names: ${module.name}`);
      module.name = name;
    }
  });
}
