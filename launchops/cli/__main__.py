from launchops.cli import main

main()
