# The Windows installer as a user meets it: install silently, run the installed programs
# (version, devices, a few batches of the mlp example), uninstall silently, and check that the
# install folder is gone. Run by .github/workflows/installers.yml.
#   powershell -File packaging/windows/smoke-test.ps1 -Installer backprop-studio-0.1.0-win64.exe
param([Parameter(Mandatory = $true)][string]$Installer,
      [string]$InstallDir = "C:\BackpropStudioSmokeTest")
$ErrorActionPreference = "Stop"

function Invoke-Checked([string]$What, [scriptblock]$Command) {
    Write-Host "== $What"
    & $Command
    if ($LASTEXITCODE -ne 0) { throw "$What failed with exit code $LASTEXITCODE" }
}

# NSIS: /S silent, /D the folder (last, unquoted).
Write-Host "== installing $Installer into $InstallDir"
$install = Start-Process -FilePath $Installer -ArgumentList "/S", "/D=$InstallDir" -Wait -PassThru
if ($install.ExitCode -ne 0) { throw "the installer exited with $($install.ExitCode)" }
$backprop = Join-Path $InstallDir "bin\backprop.exe"
foreach ($file in @($backprop, (Join-Path $InstallDir "bin\backprop-studio.exe"),
                    (Join-Path $InstallDir "share\backprop-studio\examples\mlp.json"))) {
    if (-not (Test-Path $file)) { throw "$file was not installed" }
}
if (Get-ChildItem -Path $InstallDir -Recurse -Filter "OpenCL.dll") { throw "the installer ships OpenCL.dll; it must come from the driver" }

$env:BACKPROP_CACHE_DIR = Join-Path $env:RUNNER_TEMP "backprop-cache"
Invoke-Checked "backprop --version" { & $backprop --version }
Invoke-Checked "backprop devices" { & $backprop devices }
Invoke-Checked "backprop datasets download fashion-mnist" { & $backprop datasets download fashion-mnist }
$examples = Join-Path $InstallDir "share\backprop-studio\examples"
Invoke-Checked "backprop train mlp (5 batches)" { & $backprop train (Join-Path $examples "mlp.json") --batches 5 }

# The uninstaller copies itself elsewhere and returns at once, unless _? names the folder: then it
# runs in place and waits, and leaves only itself behind.
Write-Host "== uninstalling"
$uninstaller = Join-Path $InstallDir "Uninstall.exe"
$uninstall = Start-Process -FilePath $uninstaller -ArgumentList "/S", "_?=$InstallDir" -Wait -PassThru
if ($uninstall.ExitCode -ne 0) { throw "the uninstaller exited with $($uninstall.ExitCode)" }
Remove-Item $uninstaller
$left = Get-ChildItem -Path $InstallDir -Recurse -File -ErrorAction SilentlyContinue
if ($left) { throw "left after uninstalling: $($left.FullName -join ', ')" }
Write-Host "PASSED: installed, ran, uninstalled"
