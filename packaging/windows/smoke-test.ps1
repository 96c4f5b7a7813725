# The Windows installer as a user meets it: install silently, run the installed programs
# (version, devices, a few batches of the mlp example, the studio's window), uninstall silently,
# and check that the install folder is gone. The programs run with only Windows' own folders and
# the OpenCL driver's on PATH, so that a DLL the installer forgot (Qt, vcpkg's libraries) is not
# found on the build machine's PATH instead. Run by .github/workflows/installers.yml.
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
$bin = Join-Path $InstallDir "bin"
$backprop = Join-Path $bin "backprop.exe"
$studio = Join-Path $bin "backprop-studio.exe"
# The programs, the MSVC runtime (a learner may have no Visual C++ Redistributable), Qt, the
# examples and the licence text.
foreach ($file in @($backprop, $studio, (Join-Path $bin "vcruntime140.dll"), (Join-Path $bin "msvcp140.dll"),
                    (Join-Path $bin "Qt6Core.dll"),
                    (Join-Path $InstallDir "share\backprop-studio\examples\mlp.json"),
                    (Join-Path $InstallDir "LICENSE.txt"))) {
    if (-not (Test-Path $file)) { throw "$file was not installed" }
}
# Qt's Windows platform plugin, wherever Qt's deploy script put its plugins (bin\plugins or plugins).
if (-not (Get-ChildItem -Path $InstallDir -Recurse -Filter "qwindows.dll")) { throw "Qt's platform plugin qwindows.dll was not installed" }
if (-not (Select-String -Path (Join-Path $InstallDir "LICENSE.txt") -Pattern "GNU GENERAL PUBLIC LICENSE" -Quiet)) {
    throw "LICENSE.txt is not the GPL's text"
}
if (Get-ChildItem -Path $InstallDir -Recurse -Filter "OpenCL.dll") { throw "the installer ships OpenCL.dll; it must come from the driver" }

# Only Windows' own folders on PATH, and the OpenCL drivers' (as the registry names them: a driver
# loads its own DLLs from there). No Qt, no vcpkg, no Qt variables: every DLL the programs load
# must come from the install folder or from Windows.
$driverFolders = @()
$vendors = Get-Item "HKLM:\SOFTWARE\Khronos\OpenCL\Vendors" -ErrorAction SilentlyContinue
if ($vendors) { $driverFolders = @($vendors.GetValueNames() | ForEach-Object { Split-Path $_ -Parent } | Where-Object { $_ }) }
$env:PATH = (@("$env:SystemRoot\System32", "$env:SystemRoot", "$env:SystemRoot\System32\Wbem") + $driverFolders) -join ";"
foreach ($name in @("QT_PLUGIN_PATH", "QT_QPA_PLATFORM_PLUGIN_PATH", "QML2_IMPORT_PATH", "Qt6_DIR", "QT_ROOT_DIR",
                    "VCPKG_ROOT", "VCPKG_INSTALLATION_ROOT")) {
    Remove-Item "Env:$name" -ErrorAction SilentlyContinue
}
foreach ($dll in @("Qt6Core.dll", "clblast.dll", "hdf5.dll")) {
    foreach ($folder in $env:PATH.Split(";")) {
        if (Test-Path (Join-Path $folder $dll)) { throw "$dll is on PATH ($folder): the test would not prove the installer ships it" }
    }
}
Write-Host "PATH: $env:PATH"

$env:BACKPROP_CACHE_DIR = Join-Path $env:RUNNER_TEMP "backprop-cache"
Invoke-Checked "backprop --version" { & $backprop --version }
Invoke-Checked "backprop devices" { & $backprop devices }
Invoke-Checked "backprop datasets download fashion-mnist" { & $backprop datasets download fashion-mnist }
$examples = Join-Path $InstallDir "share\backprop-studio\examples"
Invoke-Checked "backprop train mlp (5 batches)" { & $backprop train (Join-Path $examples "mlp.json") --batches 5 }

# The studio: a missing DLL or Qt plugin ends it at once (or never starts it); it must still be
# running 10 s later. Every wait is bounded.
Write-Host "== backprop-studio stays up"
$window = Start-Process -FilePath $studio -PassThru
if ($window.WaitForExit(10000)) { throw "backprop-studio exited within 10 s (exit code $($window.ExitCode))" }
Stop-Process -Id $window.Id -Force
if (-not $window.WaitForExit(30000)) { throw "backprop-studio did not end within 30 s of being stopped" }

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
