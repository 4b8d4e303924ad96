package main

import (
	"embed"
	"fmt"
	"log"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"github.com/loupe-dev/loupe/backend/cli"
	"github.com/loupe-dev/loupe/backend/sandbox"
	"github.com/loupe-dev/loupe/backend/visible"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	sandbox.MaybeRunHelper() // re-executed as the command sandbox's helper: never returns
	// What is logged can quote the model, a command or a server: it
	// reaches the terminal Loupe was started from escaped.
	log.SetOutput(visible.Writer(os.Stderr))
	// A command runs without a window; so does the one line that says
	// there is no display to open it on.
	if !bindingsBuild {
		if code, window := cli.Start(os.Args[1:], os.Stdout, os.Stderr); !window {
			os.Exit(code)
		}
	}
	app := NewApp(windowFlags(os.Args[1:]))
	err := wails.Run(&options.App{
		Title:            "Loupe",
		Width:            1320,
		Height:           860,
		MinWidth:         880,
		MinHeight:        560,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		OnStartup:        app.startup,
		OnDomReady:       app.domReady,
		OnBeforeClose:    app.beforeClose,
		OnShutdown:       app.shutdown,
		Bind:             []interface{}{app},
		// Dropped files reach Go with their paths (an import is streamed
		// from the file, never read whole by the page).
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true, DisableWebViewDrop: true},
		Linux:       &linux.Options{Icon: icon, ProgramName: "loupe"},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "loupe:", err)
		os.Exit(1)
	}
}
