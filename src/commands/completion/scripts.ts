/**
 * The completion scripts. Each one sends the words typed so far, the one under the cursor last
 * (possibly empty), to `<name> __complete <shell> …` and offers the lines it prints: a value, then
 * optionally a tab and a description. No line at all means "complete a file name".
 */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

export function script(shell: Shell, name: string): string {
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  switch (shell) {
    case 'bash':
      // bash splits `--format=js` into `--format`, `=`, `js`: the words go as bash sees them and
      // the answer is for the last one only (see complete.ts).
      return `# ${name} completion for bash: source <(${name} completion bash)
${fn}() {
  local IFS=$'\\n' line
  local -a out
  out=($("${name}" __complete bash "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)) || return 0
  COMPREPLY=()
  for line in "\${out[@]}"; do COMPREPLY+=("\${line%%$'\\t'*}"); done
  if [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == *= ]]; then compopt -o nospace 2>/dev/null; fi
}
complete -o default -o bashdefault -F ${fn} ${name}
`;
    case 'zsh':
      return `#compdef ${name}
# ${name} completion for zsh: source <(${name} completion zsh), or save it as _${name} in $fpath
${fn}() {
  local -a lines candidates
  local line value
  lines=("\${(@f)$("${name}" __complete zsh "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z $line ]] && continue
    value=\${line%%$'\\t'*}
    if [[ $line == *$'\\t'* ]]; then candidates+=("\${value//:/\\\\:}:\${line#*$'\\t'}"); else candidates+=("\${value//:/\\\\:}"); fi
  done
  if (( \${#candidates} )); then _describe -t values '${name}' candidates; else _files; fi
}
if (( $+functions[compdef] )); then compdef ${fn} ${name}; fi
`;
    case 'fish':
      return `# ${name} completion for fish: ${name} completion fish > ~/.config/fish/completions/${name}.fish
function ${fn}
    set -l words (commandline -opc)[2..-1] (commandline -ct)
    set -l out (${name} __complete fish $words 2>/dev/null)
    if test (count $out) -eq 0
        __fish_complete_path (commandline -ct)
    else
        printf '%s\\n' $out
    end
end
complete -c ${name} -f -a '(${fn})'
`;
    case 'powershell':
      return `# ${name} completion for PowerShell: ${name} completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName '${name}' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    if ($wordToComplete -eq '') { $words += '' }
    $quoted = $words | ForEach-Object { "'" + ($_ -replace "'", "''") + "'" }
    $out = Invoke-Expression "& '${name}' __complete powershell $($quoted -join ' ') 2>\`$null"
    foreach ($line in $out) {
        if (-not $line) { continue }
        $parts = $line -split "\`t", 2
        $tip = if ($parts.Count -gt 1 -and $parts[1]) { $parts[1] } else { $parts[0] }
        [System.Management.Automation.CompletionResult]::new($parts[0], $parts[0], 'ParameterValue', $tip)
    }
}
`;
  }
}
