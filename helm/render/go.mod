module troupe.dev/chart-render

go 1.19
