import FusionKit

#exportLibrary(name: "Faulty", version: "0.1.0", features: Faulty.self)
