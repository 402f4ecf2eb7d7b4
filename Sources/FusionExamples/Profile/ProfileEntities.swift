import FusionKit

// Plain records with their memberwise initializers written out: Swift synthesizes only
// internal ones, and a host's tests build these from outside the module. They repeat in shape.
/// The profile data of seed 004's app, one entity per fetch.
@JSONCoded
public struct PetEntity: JSONCoded, Equatable, Sendable {
    public var name: String
    public var species: String
    public var age: Int

    public init(name: String, species: String, age: Int) {
        self.name = name
        self.species = species
        self.age = age
    }
}

@JSONCoded
public struct FamilyMember: JSONCoded, Equatable, Sendable {
    public var name: String
    public var relation: String

    public init(name: String, relation: String) {
        self.name = name
        self.relation = relation
    }
}

@JSONCoded
public struct FamilyEntity: JSONCoded, Equatable, Sendable {
    public var members: [FamilyMember]

    public init(members: [FamilyMember]) {
        self.members = members
    }
}

@JSONCoded
public struct PreSchoolEntity: JSONCoded, Equatable, Sendable {
    public var name: String
    public var className: String
    public var teacher: String

    public init(name: String, className: String, teacher: String) {
        self.name = name
        self.className = className
        self.teacher = teacher
    }
}

@JSONCoded
public struct BabyProfile: JSONCoded, Equatable, Sendable {
    public var name: String
    /// ISO 8601 date, e.g. "2024-03-14".
    public var birthDate: String
    public var heightCm: Double
    public var weightKg: Double

    public init(name: String, birthDate: String, heightCm: Double, weightKg: Double) {
        self.name = name
        self.birthDate = birthDate
        self.heightCm = heightCm
        self.weightKg = weightKg
    }
}

/// What the library answers with when no host handles the requests (demos, tests).
enum ProfileSamples {
    static let pet = PetEntity(name: "Mochi", species: "dog", age: 3)
    static let family = FamilyEntity(members: [
        FamilyMember(name: "Jiwoo", relation: "mother"), FamilyMember(name: "Minho", relation: "father")
    ])
    static let school = PreSchoolEntity(name: "Sunflower Preschool", className: "Rabbits", teacher: "Ms. Han")
    static let baby = BabyProfile(name: "Seoyeon", birthDate: "2023-05-02", heightCm: 92.5, weightKg: 13.4)
}
