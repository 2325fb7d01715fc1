// Types of the launcher's plain-JavaScript raw-mode helper (bin/ runs before tsx is loaded).
export function startsTerminalUi(argumentsAfterScript: readonly string[]): boolean;
export function holdKeysEarly(processArguments?: readonly string[]): boolean;
