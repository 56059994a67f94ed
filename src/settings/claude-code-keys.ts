// Claude Code's settings keys that agentchart reads and does nothing with. A file copied from Claude Code
// (`.claude/settings.json`) carries them (`model`, `env`, `statusLine`, `enabledPlugins`, ...): they are
// accepted, and `agentchart config` lists them as not used, with why. A key that is in neither this table
// nor the schema is refused (a misspelt `permisions` must not be silently ignored). Keys whose absence of
// effect could weaken a guard are not here: they are used (`permissions.ask`, `disableAllHooks`,
// `permissions.disableBypassPermissionsMode`) or refused (`sandbox.enabled: true`): see settings-schema.ts.
// Sources: docs/claude-code/facts.md §3.2 (settings-reference "All settings", 2026-08; settings, 2025-08).

const why = {
  model: 'the model is chosen by --provider/--model or the host',
  login: 'credentials come from the environment (docs/models.md)',
  terminal: "a setting of Claude Code's terminal or app",
  plugins: 'agentchart has no plugins or marketplaces',
  mcp: "the workspace's MCP servers start only with --workspace-mcp",
  managed: 'takes effect only in managed settings, which agentchart does not read',
  env: 'agentchart sets no environment variables from settings',
  other: 'a Claude Code feature agentchart does not have',
} as const;

const groups: Record<keyof typeof why, readonly string[]> = {
  model: [
    'advisorModel',
    'alwaysThinkingEnabled',
    'availableModels',
    'effortLevel',
    'enforceAvailableModels',
    'fallbackModel',
    'fastMode',
    'fastModePerSessionOptIn',
    'model',
    'modelOverrides',
    'switchModelsOnFlag',
    'teammateDefaultModel',
    'ultracode',
  ],
  login: [
    'apiKeyHelper',
    'awsAuthRefresh',
    'awsCredentialExport',
    'forceLoginMethod',
    'forceLoginOrgUUID',
    'gcpAuthRefresh',
    'otelHeadersHelper',
  ],
  terminal: [
    'agentPushNotifEnabled',
    'autoConnectIde',
    'autoInstallIdeExtension',
    'autoScrollEnabled',
    'autoUpdates',
    'autoUpdatesChannel',
    'awaySummaryEnabled',
    'axScreenReader',
    'companyAnnouncements',
    'diffTool',
    'disableDeepLinkRegistration',
    'editorMode',
    'emojiCompletionEnabled',
    'externalEditorContext',
    'feedbackSurveyRate',
    'fileSuggestion',
    'footerLinksRegexes',
    'inputNeededNotifEnabled',
    'keybindingFlavor',
    'language',
    'outputStyle',
    'preferredNotifChannel',
    'prefersReducedMotion',
    'promptSuggestionEnabled',
    'showClearContextOnPlanAccept',
    'showThinkingSummaries',
    'showTurnDuration',
    'spellcheck',
    'spinnerTipsEnabled',
    'spinnerTipsOverride',
    'spinnerVerbs',
    'statusLine',
    'subagentStatusLine',
    'syntaxHighlightingDisabled',
    'terminalProgressBarEnabled',
    'terminalTitleFromRename',
    'theme',
    'tui',
    'verbose',
    'viewMode',
    'vimInsertModeRemaps',
    'voice',
    'voiceEnabled',
    'wheelScrollAccelerationEnabled',
  ],
  plugins: [
    'enabledPlugins',
    'extraKnownMarketplaces',
    'pluginConfigs',
    'skillOverrides',
    'syncClaudeAiSkills',
    'disableBundledSkills',
  ],
  mcp: [
    'disableClaudeAiConnectors',
    'disabledMcpjsonServers',
    'enableAllProjectMcpServers',
    'enabledMcpjsonServers',
  ],
  managed: [
    'allowAllClaudeAiMcps',
    'allowedChannelPlugins',
    'allowManagedHooksOnly',
    'allowManagedMcpServersOnly',
    'allowManagedPermissionRulesOnly',
    'blockedMarketplaces',
    'browserExternalPageTools',
    'channelsEnabled',
    'claudeMd',
    'disableBrowserExternalNavigation',
    'disableCommandPluginSources',
    'disableMobileSimulatorTools',
    'disableSideloadFlags',
    'forceLoginGatewayUrl',
    'forceRemoteSettingsRefresh',
    'parentSettingsBehavior',
    'pluginSuggestionMarketplaces',
    'pluginTrustMessage',
    'policyHelper',
    'requiredMaximumVersion',
    'requiredMinimumVersion',
    'sshHostAllowlist',
    'strictKnownMarketplaces',
    'strictPluginOnlyCustomization',
    'wslInheritsWindowsSettings',
  ],
  env: ['env'],
  other: [
    'agent',
    'allowedHttpHookUrls',
    'askUserQuestionTimeout',
    'attribution',
    'autoCompactEnabled',
    'autoCompactWindow',
    'autoMemoryDirectory',
    'autoMemoryEnabled',
    'autoMode',
    'claudeMdExcludes',
    'cleanupPeriodDays',
    'crossSessionInbound',
    'defaultShell',
    'dialogExpiry',
    'disableAgentView',
    'disableArtifact',
    'disableAutoMode',
    'disableRemoteControl',
    'disableSkillShellExecution',
    'disableWorkflows',
    'enableArtifact',
    'enableWorkflows',
    'fileCheckpointingEnabled',
    'httpHookAllowedEnvVars',
    'includeCoAuthoredBy',
    'includeGitInstructions',
    'isolatePeerMachines',
    'minimumVersion',
    'permissionExplainerEnabled',
    'plansDirectory',
    'processWrapper',
    'prUrlTemplate',
    'remoteControlAtStartup',
    'respectGitignore',
    'respondToBashCommands',
    'skillListingBudgetFraction',
    'skillListingMaxDescChars',
    'skipAutoPermissionPrompt',
    'skipDangerousModePermissionPrompt',
    'skipWebFetchPreflight',
    'sshConfigs',
    'teammateMode',
    'useAutoModeDuringPlan',
    'workflowKeywordTriggerEnabled',
    'workflowSizeGuideline',
    'worktree',
  ],
};

/** Each top-level key Claude Code documents that agentchart accepts and does not use, with why. */
export const notUsedSettingsKeys: ReadonlyMap<string, string> = new Map(
  Object.entries(groups).flatMap(([group, keys]) =>
    keys.map((key) => [key, why[group as keyof typeof why]] as const),
  ),
);

/** `permissions.*` keys of Claude Code's that agentchart accepts and does not use, with why. */
export const notUsedPermissionKeys: ReadonlyMap<string, string> = new Map([
  [
    'additionalDirectories',
    "agentchart's file tools stay in the workspace; more folders are not opened to them",
  ],
  ['disableAutoMode', 'agentchart has no auto mode'],
]);

/** The key of `known` nearest to a misspelt `key` (for "did you mean"), or `undefined` when none is close. */
export function nearestKey(key: string, known: Iterable<string>): string | undefined {
  let best: { key: string; distance: number; exact: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    // Between names as near without case (`bash`, `Bash` for `Bsh`), the one nearer with case wins.
    const exact = editDistance(key, candidate);
    if (best === undefined || distance < best.distance || (distance === best.distance && exact < best.exact))
      best = { key: candidate, distance, exact };
  }
  const close = Math.max(2, Math.floor(key.length / 3));
  return best !== undefined && best.distance <= close ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length]!;
}
