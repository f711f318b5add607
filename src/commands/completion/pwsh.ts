/**
 * `gymctl completion pwsh` (PowerShell 7, Windows PowerShell 5.1): a native argument completer, as gh's is, that asks
 * `gymctl __complete -- WORD…`. It is registered for every name gymctl runs by, as PowerShell looks a completer up by the
 * name typed, then the file name, then that without its extension (CompletionCompleters.cs); npm's gymctl.ps1 binds a word
 * starting with `-` as its own parameter, never asking this. Unlike cobra's script, nothing is built for Invoke-Expression:
 * the words are read from the parsed command and passed as arguments of the program (gymctl.exe, or npm's gymctl.cmd: the
 * .ps1 swallows `--`), a word with anything but letters, digits and `. , : = / \ + ~ @ -` as `_`, so cmd.exe reads no
 * operator; an empty one as `""` where PowerShell drops it (before 7.3, 'Legacy', a .cmd under 'Windows'). A candidate goes
 * back as one plain word or single-quoted (U+2018 to U+201B are quotes too); none is an empty one, so no files are listed.
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
