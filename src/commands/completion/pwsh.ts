/**
 * The PowerShell completion script (`gymctl completion pwsh`), for
 * PowerShell 7 and Windows PowerShell 5.1: a native argument completer, as
 * gh's is, that asks `gymctl __complete -- WORD…` and reads its lines.
 *
 * It is registered for each name gymctl is run by: `gymctl`, npm's
 * `gymctl.cmd` and `gymctl.ps1`, and the single executable's `gymctl.exe`.
 * PowerShell looks a native completer up by the command's name as typed,
 * then its file name, then that without its extension
 * (CompletionCompleters.cs, CompleteCommandArgument, the same since
 * PowerShell 6's first sources), so `gymctl` alone would match the others;
 * each is named all the same, for what a lookup by the exact name finds.
 * After `npm install -g`, `gymctl` is npm's gymctl.ps1, a script: PowerShell
 * binds a script's own parameters first, so a word that starts with `-`
 * is completed as a parameter of the script (npm's has none: file names),
 * and this completer is asked only for the other words. `gymctl.cmd` and
 * `gymctl.exe` are programs, for which it is asked for every word. `node
 * path\to\gymctl.cjs` is `node`'s command line, which it is not asked for.
 *
 * Unlike cobra's script, which gh uses, it never builds a command line as
 * text for Invoke-Expression: the words before the cursor are read from
 * the parsed command (a quoted word without its quotes, anything else as
 * typed, never evaluated) and passed to gymctl as arguments of the program
 * itself (gymctl.exe, or npm's gymctl.cmd), so no PowerShell parameter
 * binding (npm's gymctl.ps1 swallows `--`) comes between. A word that
 * holds anything but letters, digits and `. , : = / \ + ~ @ -` is passed as
 * `_`: it keeps its place, and nothing reaches cmd.exe (npm's gymctl.cmd)
 * that it would read as an operator. Where PowerShell drops an empty
 * argument on its way to a program (Windows PowerShell, PowerShell before
 * 7.3, `$PSNativeCommandArgumentPassing = 'Legacy'`, and a .cmd under
 * 'Windows'), the empty word under the cursor goes as `""`, which the
 * program reads as empty.
 *
 * Each candidate becomes a CompletionResult: the value as its list text,
 * a description after a tab (an academy's name) as its tooltip, and as the
 * text put on the command line the value alone when it is one plain word,
 * else in single quotes with every quote doubled (PowerShell also reads
 * the typographic ones, U+2018 to U+201B, as quotes), so that no candidate
 * is ever read by PowerShell as more than one word, an array, a variable
 * or code. `:files` leaves file names to PowerShell (a completer that
 * offers nothing); with no candidate at all an empty one is offered, so
 * PowerShell lists no files where gymctl offered none, as the other shells
 * do. gymctl's output is read as UTF-8 (names with accents), the console's
 * encoding put back after.
 */
export const PWSH = String.raw`# gymctl completion for PowerShell. Load it with: gymctl completion pwsh | Out-String | Invoke-Expression
# For good: add that line to your profile ($PROFILE).
Register-ArgumentCompleter -Native -CommandName 'gymctl', 'gymctl.cmd', 'gymctl.exe', 'gymctl.ps1' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    # The program itself: gymctl.exe, or npm's gymctl.cmd; on Windows never npm's extensionless sh script.
    $gymctl = Get-Command -Name 'gymctl' -CommandType Application -ErrorAction Ignore |
        Where-Object { $_.Extension -ne '' -or $PSVersionTable.Platform -eq 'Unix' } | Select-Object -First 1
    if (-not $gymctl) { return }
    # .NET's $ also matches before a last newline: (?!\n) keeps a word that ends in one from passing as plain.
    $plain = '^[\w.,:=/\\+~@-]*$(?!\n)'
    # The words after gymctl before the cursor, then the word under it: read from the parsed command, never evaluated.
    $words = @()
    foreach ($element in @($commandAst.CommandElements | Select-Object -Skip 1)) {
        if ($element.Extent.EndOffset -ge $cursorPosition) { break }
        if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $word = $element.Value } else { $word = $element.Extent.Text }
        if ($word -match $plain) { $words += $word } else { $words += '_' }
    }
    # A word under the cursor that is not plain (a quoted path): PowerShell completes file names.
    if ($wordToComplete -notmatch $plain) { return }
    $passing = Get-Variable -Name 'PSNativeCommandArgumentPassing' -ValueOnly -ErrorAction Ignore
    $dropsEmpty = (-not $passing) -or ($passing -eq 'Legacy') -or ($passing -eq 'Windows' -and $gymctl.Extension -in '.cmd', '.bat')
    if ($wordToComplete -eq '' -and $dropsEmpty) { $words += '""' } else { $words += $wordToComplete }
    $encoding = [Console]::OutputEncoding
    try {
        [Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false)
        $lines = @(& $gymctl.Path '__complete' '--' @words 2>$null)
    } catch {
        $lines = @()
    } finally {
        [Console]::OutputEncoding = $encoding
    }
    $directive = ':none'
    $results = foreach ($line in $lines) {
        if ($line -eq ':files' -or $line -eq ':none') { $directive = $line; continue }
        if (-not $line) { continue }
        # A description after a tab (an academy's name) is the tooltip.
        $value, $description = $line -split '\t', 2
        if (-not $description) { $description = $value }
        # One plain word goes as it is; anything else in single quotes, its quotes doubled: never more than one word.
        if ($value -match '^-{0,2}\w[\w.:=/\\+~-]*$') { $text = $value } else { $text = "'" + ($value -replace '[''\u2018-\u201B]', '$0$0') + "'" }
        [System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $description)
    }
    if ($directive -eq ':files') { return }
    if ($results) { $results } else { '' }
}
`;
