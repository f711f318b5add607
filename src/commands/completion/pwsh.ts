/**
 * `gymctl completion pwsh`, for PowerShell 7 and Windows PowerShell 5.1: a native argument completer, as gh's is, that asks
 * `gymctl __complete -- WORD…` and reads its lines.
 *
 * Registered for every name gymctl runs by (`gymctl`, npm's `gymctl.cmd` and `gymctl.ps1`, the single executable's `gymctl.exe`):
 * PowerShell looks a native completer up by the name as typed, then the file name, then that without its extension
 * (CompletionCompleters.cs, CompleteCommandArgument, the same since PowerShell 6). npm's gymctl.ps1 is a script, whose own
 * parameters PowerShell binds first: a word starting with `-` is completed as one of them (file names), never asked of this.
 * `node path\to\gymctl.cjs` is `node`'s command line, which it is not asked for.
 *
 * Unlike cobra's script, which gh uses, it never builds text for Invoke-Expression: the words before the cursor are read from
 * the parsed command, never evaluated, and passed as arguments of the program itself (gymctl.exe, or npm's gymctl.cmd: the
 * .ps1 swallows `--`). A word holding anything but letters, digits and `. , : = / \ + ~ @ -` goes as `_`, keeping its place,
 * so nothing reaches cmd.exe that it would read as an operator. Where PowerShell drops an empty argument to a program
 * (Windows PowerShell, before 7.3, `$PSNativeCommandArgumentPassing = 'Legacy'`, a .cmd under 'Windows'), it goes as `""`.
 *
 * A candidate's text on the command line is the value alone when it is one plain word, else single-quoted with every quote
 * doubled (PowerShell also reads U+2018 to U+201B as quotes): never more than one word, an array, a variable or code. With no
 * candidate an empty one is offered, so PowerShell lists no files where gymctl offered none. Output is read as UTF-8.
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
