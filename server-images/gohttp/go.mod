module dev.pacer/server-gohttp

go 1.26.0
